/**
 * docs/federation.md followed literally: scripts/federation-docs-check.sh runs its commands on three hosts
 * (network namespaces, each node its own process and folder), on SQLite and on PostgreSQL. Needs root and
 * iproute2 (skipped, saying why, without them).
 */
import assert from "node:assert/strict";
import { execFile, spawnSync } from "node:child_process";
import { describe, it } from "node:test";
import { fileURLToPath } from "node:url";
import { testDialects } from "../../helpers/nodes/node.ts";

const SCRIPT = fileURLToPath(new URL("../../../scripts/federation-docs-check.sh", import.meta.url));
const canRun =
  process.getuid?.() === 0 && spawnSync("ip", ["netns", "list"]).status === 0
    ? undefined
    : "needs root and iproute2 (network namespaces)";

describe("docs/federation.md on three hosts", { skip: canRun }, () => {
  for (const dialect of testDialects()) {
    it(`every command works as written (${dialect})`, { timeout: 600_000 }, async () => {
      const run = await new Promise<{ code: number | null; output: string }>((resolve) => {
        const child = execFile(
          "bash",
          [SCRIPT, dialect],
          { maxBuffer: 16 * 1024 * 1024 },
          (_error, stdout, stderr) => resolve({ code: child.exitCode, output: `${stdout}${stderr}` }),
        );
      });
      assert.equal(run.code, 0, run.output);
      assert.match(
        run.output,
        new RegExp(`PASS: docs/federation.md's commands run as written on three hosts \\(${dialect}\\)`),
      );
    });
  }
});
