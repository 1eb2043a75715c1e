/** File names in bags: one safe path segment each, unique case-insensitively. */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { safeFileName, UniqueNames } from "../../../src/packages/names.ts";

describe("safeFileName", () => {
  it("keeps ordinary names, and makes unsafe ones one portable segment", () => {
    assert.equal(safeFileName("table ü.csv"), "table ü.csv");
    assert.equal(safeFileName("../../etc/passwd"), "_._.._etc_passwd");
    assert.equal(safeFileName('a<b>c:d"e|f?g*h\\i%j'), "a_b_c_d_e_f_g_h_i_j");
    assert.equal(safeFileName("line\nbreak\r.txt"), "line_break_.txt");
    assert.equal(safeFileName(".hidden"), "_hidden");
    assert.equal(safeFileName("trailing. . "), "trailing");
    assert.equal(safeFileName(""), "object");
    assert.equal(safeFileName(".."), "object");
  });
  it("shortens long names but keeps the extension", () => {
    const name = safeFileName(`${"x".repeat(400)}.csv`);
    assert.equal(name.length, 180);
    assert.ok(name.endsWith(".csv"));
  });
});

describe("UniqueNames", () => {
  it("numbers clashes, ignoring case", () => {
    const names = new UniqueNames();
    assert.deepEqual(
      ["a.csv", "A.csv", "a.csv", "a_2.csv", "b"].map((n) => names.claim(n)),
      ["a.csv", "A_2.csv", "a_3.csv", "a_2_2.csv", "b"],
    );
  });
});
