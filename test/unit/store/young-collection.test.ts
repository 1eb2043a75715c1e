/**
 * Staged bytes ask V8 for a minor collection every YOUNG_COLLECTION_BYTES when node runs with --expose-gc (as
 * bin/d1node.js starts it), and for none without it. Observed in a child process through its GC entries.
 */
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { describe, it } from "node:test";
import { promisify } from "node:util";

const run = promisify(execFile);
const MODULE = new URL("../../../src/store/upload-ring/passing-chunks.ts", import.meta.url).href;

/** Minor collections seen while `noteTransientBytes` is told of `mib` MiB, 64 KiB at a time, with `flags`. */
async function minorCollections(flags: string[], mib: number): Promise<number> {
  const script = `
    const { PerformanceObserver, constants } = await import("node:perf_hooks");
    const { noteTransientBytes } = await import(${JSON.stringify(MODULE)});
    let minor = 0;
    const observer = new PerformanceObserver((list) => {
      for (const entry of list.getEntries()) if (entry.detail.kind === constants.NODE_PERFORMANCE_GC_MINOR) minor++;
    });
    observer.observe({ entryTypes: ["gc"] });
    for (let i = 0; i < ${mib * 16}; i++) noteTransientBytes(64 * 1024);
    await new Promise((resolve) => setTimeout(resolve, 100));
    observer.disconnect();
    console.log(minor);
  `;
  const { stdout } = await run(process.execPath, [
    ...flags,
    "--import",
    "tsx",
    "--input-type=module",
    "-e",
    script,
  ]);
  return Number(stdout.trim());
}

describe("young collection", () => {
  it("asks for a minor collection per 4 MiB staged when gc is exposed", async () => {
    assert.ok((await minorCollections(["--expose-gc"], 40)) >= 10);
  });

  it("asks for none without --expose-gc", async () => {
    assert.equal(await minorCollections([], 40), 0);
  });
});
