/**
 * The store migration's durable record (src/ops/store-migration/progress-log.ts): keys survive a reopen, a torn
 * last line and a taken-back key (`-<key>`) are read as meant, and a record of another migration starts afresh.
 */
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { appendFile, mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { openProgressLog, PROGRESS_LOG } from "../../../src/ops/store-migration/progress-log.ts";

const key = (n: number) => createHash("sha256").update(String(n)).digest("hex");
const ends = { from: "/data/store", to: "s3://bucket/node/" };

describe("store migration progress log", () => {
  let dir: string;
  before(async () => {
    dir = await mkdtemp(path.join(tmpdir(), "d1node-migration-log-"));
  });
  after(() => rm(dir, { recursive: true, force: true }));

  it("keeps recorded keys across runs; a torn line is ignored and a taken-back key is gone", async () => {
    const first = await openProgressLog(dir, ends);
    assert.equal(first.resumed, false);
    for (let i = 0; i < 5; i++) first.record(key(i));
    first.forget(key(2));
    await first.close();
    await appendFile(path.join(dir, PROGRESS_LOG), key(9).slice(0, 20)); // a crash in mid-line

    const second = await openProgressLog(dir, ends);
    assert.equal(second.resumed, true);
    assert.deepEqual([...second.done].sort(), [key(0), key(1), key(3), key(4)].sort());
    second.record(key(7));
    await second.close();
    const lines = (await readFile(path.join(dir, PROGRESS_LOG), "utf8")).split("\n");
    assert.ok(lines.includes(key(7)), "a new line after the torn one");
  });

  it("starts afresh for another target, and is gone once removed", async () => {
    const other = await openProgressLog(dir, { ...ends, to: "s3://elsewhere/" });
    assert.equal(other.resumed, false);
    assert.equal(other.done.size, 0);
    await other.remove();
    await assert.rejects(readFile(path.join(dir, PROGRESS_LOG)), { code: "ENOENT" });
  });
});
