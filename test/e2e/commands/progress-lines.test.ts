/**
 * Progress of long commands on standard error: `d1node load` counts what it loaded (a line per second at most,
 * then the last count), and the federation's start-up names each step (`d1node federation` prints them).
 */
import assert from "node:assert/strict";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, describe, it } from "node:test";
import { runCli } from "../../helpers/nodes/cli.ts";
import { startTestFederation } from "../../helpers/nodes/federation.ts";

describe("progress of long commands", () => {
  let dir: string | undefined;
  after(async () => {
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it("`d1node load` reports its count and the total", { timeout: 120_000 }, async () => {
    dir = await mkdtemp(path.join(tmpdir(), "d1node-load-progress-"));
    const run = await runCli(["load", "-d", path.join(dir, "data"), "--count", "3000"]);
    assert.equal(run.code, 0, run.stderr);
    assert.match(run.stderr, /^loaded 3000 \/ 3000 \(\d+ objects\/s\)$/m);
    assert.match(run.stderr, /^loaded 3000 objects in [\d.]+ s$/m);
  });

  it("the federation names each start-up step", { timeout: 120_000 }, async () => {
    const steps: string[] = [];
    const fed = await startTestFederation("sqlite", {
      mnCount: 2,
      worker: false,
      onStep: (step) => steps.push(step),
    });
    await fed.close();
    assert.equal(steps.length, 5, steps.join("\n"));
    assert.match(steps[0] ?? "", /^signing keys ready for 3 nodes/);
    assert.equal(steps[1], "started urn:node:LOCALCN (1 / 3)");
    assert.equal(steps[3], "started urn:node:LOCALMN2, registered and approved (3 / 3)");
    assert.equal(steps[4], "administrator account ready on the CN");
  });
});
