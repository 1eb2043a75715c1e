/** Staging that fails part way (source error, abort, closed store) leaves no temp file behind. */
import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { Readable } from "node:stream";
import { after, before, describe, it } from "node:test";
import { chunked, type Scratch, scratchStore, stallingSource } from "./helpers.ts";

describe("stage failures", () => {
  let s: Scratch;
  before(async () => {
    s = await scratchStore();
  });
  after(() => s.dispose());

  it("a source that errors mid-way rejects and leaves no temp file", async () => {
    const source = stallingSource(3 * 1024 * 1024, (src) => src.destroy(new Error("connection reset")));
    await assert.rejects(s.store.stage(source), /connection reset/);
    assert.deepEqual(await s.temps(), []);
  });

  it("a source that errors before the first slot fills leaves no temp file", async () => {
    const source = stallingSource(10, (src) => src.destroy(new Error("early")));
    await assert.rejects(s.store.stage(source), /early/);
    assert.deepEqual(await s.temps(), []);
  });

  it("an AbortSignal aborted mid-way rejects with its reason, destroys the source, leaves no temp file", async () => {
    const abort = new AbortController();
    const source = stallingSource(5 * 1024 * 1024, () => abort.abort(new Error("client went away")));
    await assert.rejects(s.store.stage(source, { signal: abort.signal }), /client went away/);
    assert.equal(source.destroyed, true);
    assert.deepEqual(await s.temps(), []);
  });

  it("an already aborted signal rejects at once", async () => {
    const signal = AbortSignal.abort(new Error("too late"));
    await assert.rejects(s.store.stage(chunked(randomBytes(10)), { signal }), /too late/);
    assert.deepEqual(await s.temps(), []);
  });

  it("refuses chunks that are not bytes", async () => {
    await assert.rejects(s.store.stage(Readable.from([{ a: 1 }])), TypeError);
    assert.deepEqual(await s.temps(), []);
  });

  it("the store keeps working after failures", async () => {
    const staged = await s.store.stage(chunked(randomBytes(2 * 1024 * 1024)));
    await staged.commit();
    assert.equal(await s.store.has(staged.key), true);
  });

  it("closing the store fails a stage in progress and removes its temp file", async () => {
    const other = await scratchStore();
    let closing: Promise<void> | undefined;
    const source = stallingSource(4 * 1024 * 1024, () => {
      closing = other.store.close();
      source.push(Buffer.alloc(2 * 1024 * 1024));
    });
    await assert.rejects(other.store.stage(source), /closed/);
    await closing;
    assert.deepEqual(await other.temps(), []);
    await assert.rejects(other.store.stage(chunked(Buffer.alloc(1))), /closed/);
    await other.dispose();
  });
});
