/** Which answer a GET of object bytes gets from its validators and the request's conditional and Range headers. */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { answerRead, contentRange, unsatisfiedRange } from "../../../src/http/conditional-read.ts";

const ETAG = `"sha256-${"ab".repeat(32)}"`;
const MODIFIED = "Tue, 03 Mar 2026 10:00:00 GMT";
const validators = { etag: ETAG, lastModified: MODIFIED };
const SIZE = 1000;
const answer = (headers: Record<string, string>, size = SIZE) => answerRead(headers, validators, size);

describe("conditional reads", () => {
  it("no condition, no range: the whole object", () => {
    assert.deepEqual(answer({}), { status: 200 });
  });

  it("If-None-Match with the entity tag (or a list holding it, or *) is 304; another tag is 200", () => {
    assert.deepEqual(answer({ "if-none-match": ETAG }), { status: 304 });
    assert.deepEqual(answer({ "if-none-match": `"x", ${ETAG}` }), { status: 304 });
    assert.deepEqual(answer({ "if-none-match": "*" }), { status: 304 });
    assert.deepEqual(answer({ "if-none-match": '"sha256-00"' }), { status: 200 });
  });

  it("If-Modified-Since at or after Last-Modified is 304, before it 200; If-None-Match takes precedence", () => {
    assert.deepEqual(answer({ "if-modified-since": MODIFIED }), { status: 304 });
    assert.deepEqual(answer({ "if-modified-since": "Wed, 04 Mar 2026 10:00:00 GMT" }), { status: 304 });
    assert.deepEqual(answer({ "if-modified-since": "Mon, 02 Mar 2026 10:00:00 GMT" }), { status: 200 });
    assert.deepEqual(answer({ "if-none-match": '"other"', "if-modified-since": MODIFIED }), { status: 200 });
  });

  it("Cache-Control: no-cache (fetch adds it to conditional requests) still gets 304 from the origin", () => {
    assert.deepEqual(answer({ "if-none-match": ETAG, "cache-control": "no-cache" }), { status: 304 });
  });

  it("single, open and suffix ranges are 206, clamped to the object", () => {
    assert.deepEqual(answer({ range: "bytes=0-99" }), { status: 206, range: { start: 0, end: 99 } });
    assert.deepEqual(answer({ range: "bytes=900-" }), { status: 206, range: { start: 900, end: 999 } });
    assert.deepEqual(answer({ range: "bytes=-10" }), { status: 206, range: { start: 990, end: 999 } });
    assert.deepEqual(answer({ range: "bytes=990-5000" }), { status: 206, range: { start: 990, end: 999 } });
    assert.deepEqual(answer({ range: "bytes=0-" }), { status: 206, range: { start: 0, end: 999 } });
  });

  it("a suffix range longer than the object selects the whole object (RFC 9110 section 14.1.2)", () => {
    // "If the selected representation is shorter than the specified suffix-length, the entire representation is
    // used."
    assert.deepEqual(answer({ range: "bytes=-5000" }), { status: 206, range: { start: 0, end: 999 } });
    assert.deepEqual(answer({ range: "bytes=-1000" }), { status: 206, range: { start: 0, end: 999 } });
    assert.deepEqual(answer({ range: "bytes=-5000,0-9" }), { status: 206, range: { start: 0, end: 999 } });
    // An empty object has no range to send: its whole (empty) representation.
    assert.deepEqual(answer({ range: "bytes=-5" }, 0), { status: 200 });
    // A zero-length suffix stays unsatisfiable.
    assert.deepEqual(answer({ range: "bytes=-0" }), { status: 416 });
  });

  it("ranges that overlap or touch are combined into one; several that remain get the whole object", () => {
    assert.deepEqual(answer({ range: "bytes=0-9,10-19,5-12" }), {
      status: 206,
      range: { start: 0, end: 19 },
    });
    assert.deepEqual(answer({ range: "bytes=0-9,100-109" }), { status: 200 });
  });

  it("unsatisfiable ranges are 416, also on an empty object", () => {
    assert.deepEqual(answer({ range: "bytes=1000-" }), { status: 416 });
    assert.deepEqual(answer({ range: "bytes=5000-6000" }), { status: 416 });
    assert.deepEqual(answer({ range: "bytes=0-0" }, 0), { status: 416 });
  });

  it("malformed ranges and other units are ignored (200)", () => {
    for (const range of ["bytes", "bytes=a-b", "bytes=5", "items=0-1", "0-1"]) {
      assert.deepEqual(answer({ range }), { status: 200 }, range);
    }
  });

  it("If-Range: the range applies when the strong tag or the exact date matches, else the whole object", () => {
    const range = "bytes=0-9";
    const partial = { status: 206, range: { start: 0, end: 9 } };
    assert.deepEqual(answer({ range, "if-range": ETAG }), partial);
    assert.deepEqual(answer({ range, "if-range": MODIFIED }), partial);
    assert.deepEqual(answer({ range, "if-range": '"sha256-00"' }), { status: 200 });
    assert.deepEqual(answer({ range, "if-range": `W/${ETAG}` }), { status: 200 });
    assert.deepEqual(answer({ range, "if-range": "Wed, 04 Mar 2026 10:00:00 GMT" }), { status: 200 });
    assert.deepEqual(answer({ range, "if-range": "not a date" }), { status: 200 });
  });

  it("a fresh copy wins over a range; HEAD ignores ranges", () => {
    assert.deepEqual(answer({ range: "bytes=0-9", "if-none-match": ETAG }), { status: 304 });
    assert.deepEqual(answerRead({ range: "bytes=0-9" }, validators, SIZE, false), { status: 200 });
  });

  it("without an entity tag (no bytes held) If-None-Match never matches", () => {
    assert.deepEqual(answerRead({ "if-none-match": ETAG }, { lastModified: MODIFIED }, SIZE), {
      status: 200,
    });
  });

  it("Content-Range values", () => {
    assert.equal(contentRange({ start: 0, end: 99 }, SIZE), "bytes 0-99/1000");
    assert.equal(unsatisfiedRange(SIZE), "bytes */1000");
  });
});
