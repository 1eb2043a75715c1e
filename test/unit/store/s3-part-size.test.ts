/** The S3 part size chosen for an object's declared size (src/config/s3-part-size.ts), and where that size comes from. */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { resolveConfig } from "../../../src/config/config.ts";
import { largestUpload, partSizeFor, S3_MAX_PART } from "../../../src/config/s3-part-size.ts";
import { sysmetaSize } from "../../../src/http/multipart.ts";

const MiB = 1 << 20;
const GiB = 1024 * MiB;
const TiB = 1024 * GiB;

describe("S3 part size", () => {
  it("keeps the configured size when the object's size is unknown or small", () => {
    assert.equal(partSizeFor(8 * MiB), 8 * MiB);
    assert.equal(partSizeFor(8 * MiB, 0), 8 * MiB);
    assert.equal(partSizeFor(8 * MiB, 1), 8 * MiB);
    // 9,000 parts of 8 MiB: the largest size the configured parts are planned for.
    assert.equal(partSizeFor(8 * MiB, 9_000 * 8 * MiB), 8 * MiB);
  });

  it("grows to ceil(size / 9,000), rounded up to a MiB, past that", () => {
    assert.equal(partSizeFor(8 * MiB, 9_000 * 8 * MiB + 1), 9 * MiB);
    assert.equal(partSizeFor(8 * MiB, 100 * GiB), 12 * MiB); // 11.38 MiB
    assert.equal(partSizeFor(8 * MiB, TiB), 117 * MiB); // 116.51 MiB
    // An object of 1 TiB (the default uploadMaxSize) fits in 10,000 parts with room to spare.
    assert.ok(largestUpload(partSizeFor(8 * MiB, TiB)) > TiB);
    assert.ok(TiB / partSizeFor(8 * MiB, TiB) <= 9_000);
  });

  it("never goes beyond S3's largest part (5 GiB)", () => {
    assert.equal(partSizeFor(8 * MiB, 100 * TiB), S3_MAX_PART);
  });

  it("plans nine tenths of a lowered maximum of parts", () => {
    // 3 parts at most: 2 planned, so 24 MiB take parts of 12 MiB.
    assert.equal(partSizeFor(5 * MiB, 24 * MiB, 3), 12 * MiB);
    assert.equal(partSizeFor(5 * MiB, 24 * MiB + 1, 3), 13 * MiB);
    assert.equal(partSizeFor(5 * MiB, 10 * MiB, 3), 5 * MiB);
    assert.equal(largestUpload(5 * MiB, 3), 15 * MiB);
  });

  it("takes the size from a sysmeta part read before the object part", () => {
    const sysmeta = (size: string) =>
      `<d1:systemMetadata xmlns:d1="http://ns.dataone.org/service/types/v2.0"><identifier>x</identifier>` +
      `<formatId>text/plain</formatId><size>${size}</size></d1:systemMetadata>`;
    assert.equal(sysmetaSize(new Map([["sysmeta", sysmeta("1099511627776")]])), TiB);
    assert.equal(sysmetaSize(new Map([["sysmeta", sysmeta(" 42 ")]])), 42);
    assert.equal(sysmetaSize(new Map([["sysmeta", sysmeta("-1")]])), undefined);
    assert.equal(sysmetaSize(new Map([["sysmeta", sysmeta("big")]])), undefined);
    assert.equal(sysmetaSize(new Map([["pid", "x"]])), undefined);
  });

  it("the setting storePartSize is checked against S3's limits", () => {
    assert.equal(resolveConfig({}).storePartSize, 8 * MiB);
    assert.equal(resolveConfig({ storePartSize: String(64 * MiB) }).storePartSize, 64 * MiB);
    assert.throws(() => resolveConfig({ storePartSize: String(MiB) }), /storePartSize/);
    assert.throws(() => resolveConfig({ storePartSize: String(6 * GiB) }), /storePartSize/);
  });
});
