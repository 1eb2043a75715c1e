/** Writes under way (src/search/indexing/writes-under-way.ts): what an index batch waits for, and for how long at most. */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { WritesUnderWay } from "../../../src/search/indexing/writes-under-way.ts";

describe("writes under way", () => {
  it("waits for nothing when no write is under way", async () => {
    const underWay = new WritesUnderWay();
    underWay.start()();
    let settled = false;
    const waiting = underWay.settled(60_000).then(() => {
      settled = true;
    });
    await Promise.resolve();
    assert.equal(settled, true);
    await waiting;
  });

  it("settles when the last write under way ends, each end counted once", async () => {
    const underWay = new WritesUnderWay();
    const first = underWay.start();
    const second = underWay.start();
    let settled = false;
    const waiting = underWay.settled(60_000).then(() => {
      settled = true;
    });
    first();
    first();
    await new Promise((resolve) => setImmediate(resolve));
    assert.equal(settled, false, "one write is still under way");
    second();
    await waiting;
    assert.equal(settled, true);
  });

  it("stops waiting after the longest wait while writes stay under way", async () => {
    const underWay = new WritesUnderWay();
    const stuck = underWay.start();
    await underWay.settled(5);
    // A later wait is woken by the end as usual.
    const waiting = underWay.settled(60_000);
    stuck();
    await waiting;
  });
});
