/**
 * The rebuild's moves of the terms' pending list: one every `every` documents written, never two at once, a
 * failed move logged and the next one made as usual.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { pendingTermsMover } from "../../../src/search/rebuild/pending-terms-mover.ts";

describe("the terms' pending list mover", () => {
  it("moves once every `every` documents, one move at a time, and waits for the last", async () => {
    let moves = 0;
    let running = 0;
    let release = () => {};
    const mover = pendingTermsMover(
      () => {
        moves++;
        running++;
        assert.equal(running, 1, "never two moves at once");
        return new Promise<void>((resolve) => {
          release = () => {
            running--;
            resolve();
          };
        });
      },
      undefined,
      100,
    );
    mover.written(60);
    assert.equal(moves, 0);
    mover.written(60);
    assert.equal(moves, 1);
    // Pages written during a move do not start another.
    mover.written(500);
    assert.equal(moves, 1);
    release();
    await mover.settled();
    mover.written(100);
    assert.equal(moves, 2);
    let settled = false;
    const waiting = mover.settled().then(() => {
      settled = true;
    });
    await new Promise((resolve) => setImmediate(resolve));
    assert.equal(settled, false, "settled waits for the move under way");
    release();
    await waiting;
    assert.equal(running, 0);
  });

  it("logs a failed move and goes on", async () => {
    const warnings: string[] = [];
    const log = {
      warn: (_: object, message: string) => warnings.push(message),
      error: () => undefined,
      info: () => undefined,
    };
    let moves = 0;
    const mover = pendingTermsMover(
      async () => {
        moves++;
        if (moves === 1) throw new Error("connection lost");
      },
      log,
      10,
    );
    mover.written(10);
    await mover.settled();
    assert.deepEqual(warnings, ["search index: moving the terms' pending list failed"]);
    mover.written(10);
    await mover.settled();
    assert.equal(moves, 2);
    assert.equal(warnings.length, 1);
  });
});
