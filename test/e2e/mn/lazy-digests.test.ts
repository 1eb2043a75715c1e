/**
 * Digests an upload did not compute: a create computes SHA-256 and the system metadata's algorithm only; MD5 and
 * SHA-1 are computed from the stored bytes on the first getChecksum (or package manifest) that needs them, recorded for
 * every object with those bytes, and answered from the record afterwards.
 */
import assert from "node:assert/strict";
import { createHash, randomBytes } from "node:crypto";
import { rm } from "node:fs/promises";
import path from "node:path";
import { before, describe, it } from "node:test";
import { type Caller, call, enc, errorOf, form } from "../../helpers/clients/client.ts";
import { RESOURCE_MAP_FORMAT, resourceMapXml } from "../../helpers/data/resource-map.ts";
import { type SysmetaOptions, sysmetaXml, uniquePid } from "../../helpers/data/sysmeta.ts";
import { ADMIN, testDialects, withTestNode } from "../../helpers/nodes/node.ts";
import { unzip, verifyManifests } from "../../helpers/validation/bag.ts";
import { validateXml } from "../../helpers/validation/xmllint.ts";

const hex = (algorithm: string, bytes: Buffer) => createHash(algorithm).update(bytes).digest("hex");

/** MNStorage.create with the system metadata part before the object part, as clients usually send it. */
function create(c: Caller, pid: string, bytes: Buffer, options: SysmetaOptions): Promise<Response> {
  const sysmeta = { xml: sysmetaXml(pid, bytes, options) };
  return call(c, "POST", "/object", { body: form({ pid, sysmeta, object: bytes }) });
}

for (const dialect of testDialects()) {
  describe(`Digests computed on first request (${dialect})`, () => {
    const node = withTestNode(dialect);
    let admin: Caller;

    before(async () => {
      admin = { baseUrl: node.baseUrl, token: await node.token(ADMIN) };
    });

    const recorded = async (pid: string) => (await node.node.ctx.db.objects.get(pid))?.digests;
    const checksum = async (pid: string, algorithm: string) => {
      const response = await call(admin, "GET", `/checksum/${enc(pid)}?checksumAlgorithm=${algorithm}`);
      const xml = await response.text();
      assert.equal(response.status, 200, xml);
      await validateXml(xml);
      return { algorithm: /algorithm="([^"]+)"/.exec(xml)?.[1], value: />([0-9a-f]+)</.exec(xml)?.[1] };
    };

    for (const size of [1000, 3 * 1024 * 1024 + 7]) {
      it(`a create (${size} bytes, SHA-256 declared) records SHA-256 alone; MD5 and SHA-1 on first request`, async () => {
        const bytes = randomBytes(size);
        const pid = uniquePid("lazy");
        const twin = uniquePid("lazy-twin");
        for (const id of [pid, twin]) {
          const response = await create(admin, id, bytes, { algorithm: "SHA-256" });
          assert.equal(response.status, 200, await response.text());
        }
        assert.deepEqual(await recorded(pid), { size, md5: "", sha1: "", sha256: hex("sha256", bytes) });

        assert.deepEqual(await checksum(pid, "MD5"), { algorithm: "MD5", value: hex("md5", bytes) });
        assert.deepEqual(await checksum(pid, "SHA-1"), { algorithm: "SHA-1", value: hex("sha1", bytes) });
        const expected = {
          size,
          md5: hex("md5", bytes),
          sha1: hex("sha1", bytes),
          sha256: hex("sha256", bytes),
        };
        // Recorded for both objects holding these bytes.
        assert.deepEqual(await recorded(pid), expected);
        assert.deepEqual(await recorded(twin), expected);
        assert.deepEqual(await checksum(twin, "md5"), { algorithm: "MD5", value: hex("md5", bytes) });
      });
    }

    it("answers a recorded digest without the bytes; a missing one needs them (NotFound when gone)", async () => {
      const bytes = randomBytes(2000);
      const pid = uniquePid("lazy-gone");
      assert.equal((await create(admin, pid, bytes, { algorithm: "MD5" })).status, 200);
      const key = hex("sha256", bytes);
      await rm(path.join(node.dataDir, "store", "objects", key.slice(0, 2), key.slice(2, 4), key));
      assert.deepEqual(await checksum(pid, "MD5"), { algorithm: "MD5", value: hex("md5", bytes) });
      assert.deepEqual(await checksum(pid, "SHA-256"), { algorithm: "SHA-256", value: key });
      const missing = await errorOf(
        await call(admin, "GET", `/checksum/${enc(pid)}?checksumAlgorithm=SHA-1`),
      );
      assert.equal(missing.name, "NotFound", missing.body);
      assert.equal((await recorded(pid))?.sha1, "");
    });

    it("a package of objects uploaded without MD5 lists their MD5s (computed, then recorded)", async () => {
      const data = uniquePid("lazy-csv");
      const metadata = uniquePid("lazy-eml");
      const map = uniquePid("lazy-map");
      const csv = Buffer.from("t,v\n1,2\n");
      const eml = Buffer.from(
        '<?xml version="1.0"?><eml:eml xmlns:eml="eml://ecoinformatics.org/eml-2.1.1" packageId="p" system="s"><dataset><title>T</title></dataset></eml:eml>',
      );
      const rdf = Buffer.from(resourceMapXml(map, metadata, [data]));
      const uploads: [string, Buffer, SysmetaOptions][] = [
        [data, csv, { algorithm: "SHA-256" }],
        [metadata, eml, { algorithm: "SHA-1", formatId: "eml://ecoinformatics.org/eml-2.1.1" }],
        [map, rdf, { algorithm: "SHA-256", formatId: RESOURCE_MAP_FORMAT }],
      ];
      for (const [pid, bytes, options] of uploads) {
        const response = await create(admin, pid, bytes, options);
        assert.equal(response.status, 200, await response.text());
        assert.equal((await recorded(pid))?.md5, "");
      }
      const response = await call(admin, "GET", `/packages/${enc("application/bagit-1.0")}/${enc(map)}`);
      assert.equal(response.status, 200);
      const { payload, tags } = verifyManifests(await unzip(Buffer.from(await response.arrayBuffer())));
      assert.equal(payload.length, 2);
      assert.ok(tags.includes("metadata/oai-ore.xml"));
      for (const [pid, bytes] of uploads) assert.equal((await recorded(pid))?.md5, hex("md5", bytes));
    });

    it("concurrent first requests agree and record one value", async () => {
      const bytes = randomBytes(5 * 1024 * 1024);
      const pid = uniquePid("lazy-race");
      assert.equal((await create(admin, pid, bytes, { algorithm: "SHA-1" })).status, 200);
      const answers = await Promise.all(Array.from({ length: 6 }, () => checksum(pid, "MD5")));
      for (const answer of answers) assert.deepEqual(answer, { algorithm: "MD5", value: hex("md5", bytes) });
      assert.equal((await recorded(pid))?.md5, hex("md5", bytes));
    });
  });
}
