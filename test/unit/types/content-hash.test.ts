/** Hash URIs and hex digests as clients write them: either case, the algorithm's own length, nothing else. */
import assert from "node:assert/strict";
import { it } from "node:test";
import { hexDigest, looksLikeHashUri, parseHashUri } from "../../../src/types/content-hash.ts";

const SHA256 = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855";

it("reads hash URIs in either case, each algorithm with its digest's length", () => {
  assert.deepEqual(parseHashUri(`hash://sha256/${SHA256}`), { algorithm: "sha256", hex: SHA256 });
  assert.deepEqual(parseHashUri(`HASH://SHA256/${SHA256.toUpperCase()}`), {
    algorithm: "sha256",
    hex: SHA256,
  });
  assert.equal(parseHashUri(`hash://md5/${"a".repeat(32)}`)?.algorithm, "md5");
  assert.equal(parseHashUri(`hash://sha1/${"a".repeat(40)}`)?.algorithm, "sha1");
  assert.equal(parseHashUri(`hash://sha512/${"a".repeat(128)}`)?.algorithm, "sha512");
});

it("refuses what is no hash URI: wrong length, unknown algorithm, not hex, anything around it", () => {
  for (const text of [
    `hash://sha256/${SHA256.slice(2)}`,
    `hash://md5/${SHA256}`,
    `hash://sha3/${SHA256}`,
    "hash://sha256/not-hex",
    `hash://sha256/${SHA256}/more`,
    ` hash://sha256/${SHA256}`,
    `hash://constructor/${SHA256}`,
    SHA256,
  ]) {
    assert.equal(parseHashUri(text), undefined, text);
  }
  assert.equal(looksLikeHashUri(`hash://sha256/zz`), true);
  assert.equal(looksLikeHashUri("doi:10.5063/F1"), false);
});

it("a hex digest is lower-cased; odd lengths, short values and other characters are not digests", () => {
  assert.equal(hexDigest("ABCDEF0123"), "abcdef0123");
  for (const text of ["abc", "abcdef0", "abcdefgh", "", "12345678 "])
    assert.equal(hexDigest(text), undefined, text);
});
