/**
 * A rebuild's threads get a larger young generation than the command's 4 MiB semi-space (young-generation.ts),
 * and threads started after them keep the process's own: run in a node started as bin/d1node.js starts it.
 */
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { it } from "node:test";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";

const CHILD = fileURLToPath(new URL("../../fixtures/search/young-generation-child.ts", import.meta.url));

it("lets a rebuild's thread grow its young space past 4 MiB, and gives later threads the process's own", async () => {
  const { stdout } = await promisify(execFile)(process.execPath, [
    "--max-semi-space-size=4",
    "--import",
    "tsx",
    CHILD,
  ]);
  const { large, plain } = JSON.parse(stdout) as { large: number; plain: number };
  const MiB = 1024 * 1024;
  assert.ok(plain <= 8 * MiB, `the plain thread's young space: ${plain / MiB} MiB`);
  assert.ok(large > 8 * MiB, `the rebuild thread's young space: ${large / MiB} MiB`);
});
