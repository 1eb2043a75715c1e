/** Identifier order in memory matches the databases' byte-wise order; prefix ranges are exact. */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { compareCodePoints, compareKeys, prefixUpperBound } from "../../../src/db/lists/order.ts";

const utf8 = (a: string, b: string) => Buffer.compare(Buffer.from(a), Buffer.from(b));
const sign = (n: number) => Math.sign(n);

describe("identifier order", () => {
  it("compares strings as their UTF-8 bytes compare", () => {
    const alphabet = [
      "a",
      "B",
      "é",
      "\u07FF",
      "\u0800",
      "\uD7FF",
      "\uE000",
      "\uFFFD",
      "\uFFFF",
      "😀",
      "\u{10000}",
      "\u{10FFFF}",
    ];
    const strings: string[] = [""];
    for (const x of alphabet) for (const y of alphabet) strings.push(x, x + y);
    for (const a of strings) {
      for (const b of strings) assert.equal(sign(compareCodePoints(a, b)), sign(utf8(a, b)), `${a} ${b}`);
    }
  });

  it("orders list keys by date, then identifier or entry id", () => {
    assert.ok(compareKeys([1, "b"], [2, "a"]) < 0);
    assert.ok(compareKeys([1, "\u{10000}"], [1, "\uE000"]) > 0);
    assert.ok(compareKeys([1, 10], [1, 9]) > 0);
    assert.equal(compareKeys([1, "x"], [1, "x"]), 0);
  });

  it("bounds every string with a prefix, and nothing else", () => {
    assert.equal(prefixUpperBound("abc"), "abd");
    assert.equal(prefixUpperBound("a\u{10FFFF}"), "b");
    assert.equal(prefixUpperBound("\uD7FF"), "\uE000");
    assert.equal(prefixUpperBound("\u{10FFFF}"), undefined);
    assert.equal(prefixUpperBound(""), undefined);
    const prefix = "ü\u{10FFFF}";
    const bound = prefixUpperBound(prefix) as string;
    for (const s of ["ü\u{10FFFF}", "ü\u{10FFFF}\u{10FFFF}zz", "ü\u{10FFFF}a"]) {
      assert.ok(utf8(s, prefix) >= 0 && utf8(s, bound) < 0, s);
    }
    for (const s of ["ü", "ü\u{FFFF}", "ý", "üa"]) assert.ok(utf8(s, prefix) < 0 || utf8(s, bound) >= 0, s);
  });
});
