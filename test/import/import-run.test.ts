/**
 * `d1node import` runs as an operator meets them, against a source of the test's making: what the source wrote
 * just before the run is copied (what it changed after the run started is named, exit 1); each object is counted
 * once (versions copied ahead of the listed one, objects listed again at a page's last date); a listed PID with a
 * NUL is named and skipped, and the next run is not stopped by it; an object that keeps coming past its declared
 * size stops there; Ctrl-C prints the summary and exits 2.
 */
import assert from "node:assert/strict";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, it } from "node:test";
import { eventually } from "../helpers/time/eventually.ts";
import { type FakeSource, fakeRecord, startFakeSource } from "./fake-source.ts";
import { type ImportRun, runImport, startImport } from "./import-process.ts";

const summaryOf = (run: ImportRun) => {
  const m = /objects copied (\d+), updated (\d+), unchanged (\d+), failed (\d+)/.exec(run.stdout);
  assert.ok(m, `no summary:\n${run.stdout}\n${run.stderr}`);
  return { copied: Number(m[1]), updated: Number(m[2]), unchanged: Number(m[3]), failed: Number(m[4]) };
};

describe("d1node import runs", () => {
  let fake: FakeSource;
  let dataDir: string;
  const importInto = (...extra: string[]) => runImport(["--from", fake.baseUrl, "-d", dataDir, ...extra]);

  beforeEach(async () => {
    fake = await startFakeSource();
    dataDir = await mkdtemp(path.join(tmpdir(), "d1node-import-run-"));
  });
  afterEach(async () => {
    await fake.close();
    await rm(dataDir, { recursive: true, force: true });
  });

  it("copies what the source wrote just before the run and names what changed after it started", async () => {
    fake.objects.set(
      "just-before",
      fakeRecord("just-before", "written a moment ago\n", new Date(Date.now() - 300)),
    );
    fake.objects.set("ahead", fakeRecord("ahead", "dated by a clock ahead\n", new Date(Date.now() + 60_000)));
    const run = await importInto();
    assert.equal(run.code, 1, run.stderr);
    assert.deepEqual(summaryOf(run), { copied: 1, updated: 0, unchanged: 0, failed: 0 });
    assert.match(
      run.stderr,
      /1 objects changed at the source after this run started .*run again to copy them/,
    );
  });

  it("counts each object once: versions copied ahead, objects listed again at a page's last date", async () => {
    const at = (s: number) => new Date(Date.now() - 60_000 + s * 1000);
    // v1 <- v2 <- v3; v1's record changed last, so the listing names v2 and v3 before v1.
    fake.objects.set(
      "v1",
      fakeRecord("v1", "one\n", at(0), { obsoletedBy: "v2", dateSysMetadataModified: at(9) }),
    );
    fake.objects.set("v2", fakeRecord("v2", "two\n", at(1), { obsoletes: "v1", obsoletedBy: "v3" }));
    fake.objects.set("v3", fakeRecord("v3", "three\n", at(1), { obsoletes: "v2" }));
    for (const [i, second] of [2, 2, 2, 3, 3, 3].entries())
      fake.objects.set(`same-${i}`, fakeRecord(`same-${i}`, `object ${i}\n`, at(second)));
    const run = await importInto("--page-size", "2");
    assert.equal(run.code, 0, run.stderr);
    assert.deepEqual(summaryOf(run), { copied: 9, updated: 0, unchanged: 0, failed: 0 });
    const shown = [...run.stderr.matchAll(/import: (\d+)\/(\d+) objects/g)].map((m) => [
      Number(m[1]),
      Number(m[2]),
    ]);
    for (const [done = 0, total = 0] of shown) assert.ok(done <= total, `${done}/${total}\n${run.stderr}`);
    assert.deepEqual(shown.at(-1), [9, 9], run.stderr);
  });

  it("names a listed PID with a NUL, skips it, and the next run is not stopped by it", async () => {
    const at = new Date(Date.now() - 60_000);
    fake.objects.set("fine-1", fakeRecord("fine-1", "one\n", at));
    fake.objects.set("fine-2", fakeRecord("fine-2", "two\n", new Date(at.getTime() + 1)));
    fake.listing = () =>
      [
        ...[...fake.objects.values()].map(({ sysmeta: s }) => ({
          identifier: s.identifier,
          formatId: s.formatId,
          checksum: s.checksum,
          dateSysMetadataModified: s.dateSysMetadataModified as Date,
          size: s.size,
        })),
      ].flatMap((item, i) =>
        i === 0 ? [item, { ...item, identifier: "nul", raw: "<identifier>a&#0;b</identifier>" }] : [item],
      );
    const first = await importInto();
    assert.equal(first.code, 1, first.stderr);
    assert.deepEqual(summaryOf(first), { copied: 2, updated: 0, unchanged: 0, failed: 1 });
    assert.match(
      first.stderr,
      /failed "a\uFFFDb": the source lists "a\uFFFDb", with a character XML does not allow: skipped/,
    );
    const second = await importInto("--restart");
    assert.equal(second.code, 1, second.stderr);
    assert.deepEqual(summaryOf(second), { copied: 0, updated: 0, unchanged: 2, failed: 1 });
  });

  it("stops an object that keeps coming past its declared size, at that size", {
    timeout: 60_000,
  }, async () => {
    fake.objects.set("flood", fakeRecord("flood", Buffer.alloc(1000, 7), new Date(Date.now() - 60_000)));
    fake.route = (route, _request, response) => {
      if (route !== "/object/flood") return false;
      response.writeHead(200, { "content-type": "application/octet-stream" });
      const chunk = Buffer.alloc(256 * 1024, 7);
      const more = () => {
        while (!response.destroyed && fake.sent < 256 * 1024 * 1024 && response.write(chunk))
          fake.sent += chunk.length;
        if (fake.sent >= 256 * 1024 * 1024) response.end();
      };
      response.on("drain", more);
      more();
      return true;
    };
    const run = await importInto();
    assert.equal(run.code, 1, run.stderr);
    assert.match(
      run.stderr,
      /failed "flood": InvalidSystemMetadata: The source sent more bytes than the size/,
    );
    assert.ok(fake.sent < 32 * 1024 * 1024, `the source wrote ${fake.sent} bytes`);
  });

  it("prints the summary and exits 2 on Ctrl-C", { timeout: 60_000 }, async () => {
    fake.objects.set("quick", fakeRecord("quick", "quick\n", new Date(Date.now() - 60_000)));
    fake.objects.set("slow", fakeRecord("slow", Buffer.alloc(1000, 1), new Date(Date.now() - 59_000)));
    let asked = false;
    fake.route = (route, _request, response) => {
      if (route !== "/object/slow") return false;
      asked = true;
      response.writeHead(200, { "content-type": "application/octet-stream" });
      const timer = setInterval(() => response.write("x"), 100);
      response.on("close", () => clearInterval(timer));
      return true;
    };
    const { child, done } = startImport(["--from", fake.baseUrl, "-d", dataDir, "--concurrency", "1"]);
    await eventually("the slow object asked for", async () => (asked ? true : undefined));
    child.kill("SIGINT");
    const run = await done;
    assert.equal(run.code, 2, run.stderr);
    assert.deepEqual(summaryOf(run), { copied: 1, updated: 0, unchanged: 0, failed: 0 });
    assert.match(run.stderr, /d1node import: stopped: interrupted; run it again to continue/);
  });
});
