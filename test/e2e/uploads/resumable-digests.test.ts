/**
 * The digests of a resumable upload, as of an inline one: SHA-256 and the algorithm its `checksumAlgorithm`
 * metadata names are computed as the bytes arrive; an algorithm the system metadata names that the upload did not
 * compute is computed at create from the finished file; MD5 / SHA-1 not computed are recorded as unknown and
 * computed on the first getChecksum that needs them.
 */
import assert from "node:assert/strict";
import { createHash, randomBytes } from "node:crypto";
import { describe, it } from "node:test";
import { call, checkedError, enc, form } from "../../helpers/clients/client.ts";
import { createUpload, patchUpload } from "../../helpers/clients/tus.ts";
import { type SysmetaOptions, sysmetaXml, uniquePid } from "../../helpers/data/sysmeta.ts";
import { testDialects, withTestNode } from "../../helpers/nodes/node.ts";

const ALICE = "CN=Alice,O=d1node,C=US,DC=cilogon,DC=org";
const hex = (algorithm: string, bytes: Buffer) => createHash(algorithm).update(bytes).digest("hex");

for (const dialect of testDialects()) {
  describe(`resumable upload digests (${dialect})`, () => {
    const node = withTestNode(dialect);

    const alice = async () => ({ baseUrl: node.baseUrl, token: await node.token(ALICE) });
    const recorded = async (pid: string) => (await node.node.ctx.db.objects.get(pid))?.digests;

    /** A finished upload of `bytes` whose creation named `checksumAlgorithm` (or none). */
    async function finishedUpload(bytes: Buffer, checksumAlgorithm?: string): Promise<string> {
      const token = await node.token(ALICE);
      const metadata: Record<string, string> = checksumAlgorithm ? { checksumAlgorithm } : {};
      const created = await createUpload(node.baseUrl, token, bytes.length, metadata);
      assert.equal(created.status, 201, created.body);
      const location = created.headers.location ?? "";
      // Two PATCHes: the running digests carry over from one request to the next.
      const half = Math.floor(bytes.length / 2);
      for (const [from, to] of [
        [0, half],
        [half, bytes.length],
      ] as const) {
        const sent = await patchUpload(location, token, from, bytes.subarray(from, to));
        assert.ok(sent !== "cut" && sent.status === 204, JSON.stringify(sent));
      }
      return location;
    }

    async function createFrom(pid: string, location: string, bytes: Buffer, options: SysmetaOptions) {
      const sysmeta = { xml: sysmetaXml(pid, bytes, { rightsHolder: ALICE, ...options }) };
      const body = form({ pid, objectUpload: location, sysmeta });
      return call(await alice(), "POST", "/object", { body });
    }

    it("computes SHA-256 and the named algorithm only; MD5 and SHA-1 are recorded unknown until asked", async () => {
      const bytes = randomBytes(3 * 1024 * 1024 + 11);
      const location = await finishedUpload(bytes, "MD5");
      const pid = uniquePid("tus-md5");
      const created = await createFrom(pid, location, bytes, { algorithm: "MD5" });
      assert.equal(created.status, 200, await created.text());
      const size = bytes.length;
      const md5 = hex("md5", bytes);
      assert.deepEqual(await recorded(pid), { size, md5, sha1: "", sha256: hex("sha256", bytes) });

      const answer = await call(await alice(), "GET", `/checksum/${enc(pid)}?checksumAlgorithm=SHA-1`);
      assert.match(await answer.text(), new RegExp(`>${hex("sha1", bytes)}<`));
      assert.equal((await recorded(pid))?.sha1, hex("sha1", bytes));
    });

    it("an algorithm the upload did not name is computed at create from the finished file", async () => {
      const bytes = randomBytes(200_000);
      const unnamed = await finishedUpload(bytes);
      const pid = uniquePid("tus-unnamed");
      const created = await createFrom(pid, unnamed, bytes, { algorithm: "SHA-1" });
      assert.equal(created.status, 200, await created.text());
      assert.deepEqual(await recorded(pid), {
        size: bytes.length,
        md5: "",
        sha1: hex("sha1", bytes),
        sha256: hex("sha256", bytes),
      });

      // Named MD5, declared SHA-1: computed at create too, and a wrong value refused with nothing stored.
      const other = randomBytes(70_000);
      const location = await finishedUpload(other, "MD5");
      const wrongPid = uniquePid("tus-wrong");
      const wrong = await createFrom(wrongPid, location, other, {
        algorithm: "SHA-1",
        checksum: "0".repeat(40),
      });
      const error = await checkedError(wrong);
      assert.equal(error.name, "InvalidSystemMetadata", error.body);
      assert.match(error.body, /SHA-1 checksum of the received bytes is [0-9a-f]{40}/);
      assert.equal(await recorded(wrongPid), undefined);
      const right = await createFrom(uniquePid("tus-right"), location, other, { algorithm: "SHA-1" });
      assert.equal(right.status, 200, await right.text());
    });

    it("refuses an upload whose checksumAlgorithm is not one DataONE names", async () => {
      const token = await node.token(ALICE);
      const refused = await createUpload(node.baseUrl, token, 100, { checksumAlgorithm: "CRC32" });
      assert.equal(refused.status, 400, refused.body);
      assert.match(refused.body, /checksumAlgorithm: Checksum algorithm "CRC32" is not supported/);
    });
  });
}
