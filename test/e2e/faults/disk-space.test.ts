/**
 * Free disk space: a node started (`d1node serve`) on a small filesystem (a 16 MiB tmpfs, mounted as root)
 * prints one warning line; its status page and metrics show the free and total bytes beside what is stored.
 * Without the right to mount, the test is skipped (the thresholds are tested in test/unit/ops/disk-space.test.ts).
 */
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { type NodeProcess, spawnNode } from "../../helpers/nodes/process-node.ts";
import { eventually } from "../../helpers/time/eventually.ts";

const SIZE = 16 * 1024 * 1024;

describe("disk space of a node on a 16 MiB filesystem", () => {
  let folder: string;
  let mounted = false;
  let node: NodeProcess | undefined;

  before(async () => {
    folder = await mkdtemp(path.join(tmpdir(), "d1node-small-disk-"));
    try {
      execFileSync("mount", ["-t", "tmpfs", "-o", `size=${SIZE}`, "tmpfs", folder], { stdio: "pipe" });
      mounted = true;
    } catch {
      return;
    }
    node = await spawnNode([
      "--data-dir",
      path.join(folder, "data"),
      "--status-page",
      "public",
      "--metrics",
      "public",
    ]);
  });
  after(async () => {
    await node?.kill();
    if (mounted) execFileSync("umount", [folder]);
    await rm(folder, { recursive: true, force: true });
  });

  it("prints one warning line at start", async (t) => {
    const started = node;
    if (!started) return t.skip("mounting a tmpfs needs root");
    // The line follows the "serving" line the helper waits for.
    const warnings = await eventually("the warning line", async () => {
      const found = started
        .output()
        .split("\n")
        .filter((line) => line.startsWith("warning: little free disk space"));
      return found.length > 0 ? found : undefined;
    });
    assert.equal(warnings.length, 1, started.output());
    assert.match(warnings[0] as string, /: \d+(\.\d)? MiB of 16 MiB free \(\d+\.\d %\)/);
  });

  it("the status page shows the free bytes, marked low, beside the bytes stored", async (t) => {
    if (!node) return t.skip("mounting a tmpfs needs root");
    const page = await (await fetch(`${node.baseUrl}/status`)).text();
    assert.match(page, /<dd id="disk-free" class="bad">\d+(\.\d)? MiB of 16 MiB<\/dd>/);
    assert.match(page, /id="object-bytes"/);
  });

  it("the metrics give the filesystem's free and total bytes", async (t) => {
    if (!node) return t.skip("mounting a tmpfs needs root");
    const text = await (await fetch(`${node.baseUrl}/metrics`)).text();
    assert.match(text, new RegExp(`^d1node_disk_size_bytes ${SIZE}$`, "m"));
    const free = Number(/^d1node_disk_free_bytes (\d+)$/m.exec(text)?.[1]);
    assert.ok(free > 0 && free < SIZE, text);
  });
});
