/** pumpChunks: every chunk in order, the source paused while the sink waits, failures of either side reported. */
import assert from "node:assert/strict";
import { PassThrough, Readable } from "node:stream";
import { describe, it } from "node:test";
import { pumpChunks } from "../../../src/store/upload-ring/chunk-pump.ts";

describe("pumpChunks", () => {
  it("hands every chunk over in order and pauses the source while the sink waits", async () => {
    const source = Readable.from(["a", "b", "c", "d"].map((s) => Buffer.from(s)));
    const seen: string[] = [];
    let pausedWhileWaiting = true;
    await pumpChunks(source, (chunk) => {
      seen.push(chunk.toString());
      if (chunk.toString() !== "b") return undefined;
      return new Promise<void>((resolve) =>
        setImmediate(() => {
          pausedWhileWaiting = source.isPaused();
          resolve();
        }),
      );
    });
    assert.deepEqual(seen, ["a", "b", "c", "d"]);
    assert.ok(pausedWhileWaiting);
  });

  it("waits for the last chunk's sink before it resolves", async () => {
    let done = false;
    await pumpChunks(Readable.from([Buffer.from("x")]), () =>
      new Promise<void>((resolve) => setImmediate(resolve)).then(() => {
        done = true;
      }),
    );
    assert.ok(done);
  });

  it("rejects with the sink's failure, thrown or awaited", async () => {
    await assert.rejects(
      pumpChunks(Readable.from([Buffer.from("x")]), () => {
        throw new Error("disk full");
      }),
      /disk full/,
    );
    await assert.rejects(
      pumpChunks(Readable.from([Buffer.from("x")]), () => Promise.reject(new Error("no slot"))),
      /no slot/,
    );
  });

  it("rejects when the source fails or closes before its end", async () => {
    const failing = new PassThrough();
    const failed = pumpChunks(failing, () => undefined);
    failing.write("x");
    failing.destroy(new Error("client disconnected"));
    await assert.rejects(failed, /client disconnected/);
    const closing = new PassThrough();
    const closed = pumpChunks(closing, () => undefined);
    closing.destroy();
    await assert.rejects(closed, { code: "ERR_STREAM_PREMATURE_CLOSE" });
  });
});
