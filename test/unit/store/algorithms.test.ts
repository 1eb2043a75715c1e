/** DataONE algorithm names and how hashes are spread over hasher threads. */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { algorithmKey, balance } from "../../../src/store/algorithms.ts";

describe("algorithmKey", () => {
  it("normalises DataONE names and common spellings", () => {
    assert.equal(algorithmKey("MD5"), "md5");
    assert.equal(algorithmKey("SHA-1"), "sha1");
    assert.equal(algorithmKey("sha1"), "sha1");
    assert.equal(algorithmKey("SHA256"), "sha256");
    assert.equal(algorithmKey("sha-256"), "sha256");
    assert.equal(algorithmKey("SHA-384"), "sha384");
    assert.equal(algorithmKey("Sha-512"), "sha512");
  });

  it("refuses anything else", () => {
    for (const name of ["", "CRC32", "SHA-3", "sha-224", "toString", "__proto__", "SHA--1x"]) {
      assert.equal(algorithmKey(name), undefined, name);
    }
  });
});

describe("balance", () => {
  it("puts MD5 alone and SHA-1 with SHA-256 on two threads", () => {
    assert.deepEqual(balance(["md5", "sha1", "sha256"], 2), [["md5"], ["sha256", "sha1"]]);
  });

  it("spreads an extra SHA-512 so neither thread has two slow hashes", () => {
    const groups = balance(["md5", "sha1", "sha256", "sha512"], 2);
    assert.equal(groups.length, 2);
    assert.ok(groups.every((g) => !(g.includes("md5") && g.includes("sha512"))));
    assert.deepEqual(groups.flat().sort(), ["md5", "sha1", "sha256", "sha512"]);
  });

  it("keeps one (possibly empty) group per thread", () => {
    assert.deepEqual(balance(["md5"], 3), [["md5"], [], []]);
  });
});
