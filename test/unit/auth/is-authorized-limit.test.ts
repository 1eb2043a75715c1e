/** The isAuthorized source limit: calls per minute per source, a temporary block, sources counted apart. */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { SourceLimiter } from "../../../src/http/plugins/is-authorized-limit.ts";

describe("SourceLimiter", () => {
  it("blocks a source for blockMs after it goes over the limit, then lets it start afresh", () => {
    let now = 0;
    const limiter = new SourceLimiter(3, 5000, () => now);
    assert.deepEqual(
      [1, 2, 3].map(() => limiter.admit("a")),
      [0, 0, 0],
    );
    assert.equal(limiter.admit("a"), 5000);
    assert.equal(limiter.admit("b"), 0);
    now = 4000;
    assert.equal(limiter.admit("a"), 1000);
    now = 5000;
    assert.deepEqual(
      [1, 2, 3].map(() => limiter.admit("a")),
      [0, 0, 0],
    );
    assert.equal(limiter.admit("a"), 5000);
  });

  it("counts per minute", () => {
    let now = 0;
    const limiter = new SourceLimiter(2, 1000, () => now);
    assert.equal(limiter.admit("a") + limiter.admit("a"), 0);
    now = 60_000;
    assert.equal(limiter.admit("a") + limiter.admit("a"), 0);
    assert.equal(limiter.admit("a"), 1000);
  });
});
