/**
 * Checksum algorithm spellings: "sha1", "SHA256", "Sha-512", "md5" are the algorithms DataONE lists as MD5,
 * SHA-1, SHA-256, SHA-384 and SHA-512, and are stored under those names on every path a client's system metadata
 * enters (MN create, update, updateSystemMetadata; CN register), so getChecksum and the stored system metadata
 * agree. Unknown names are InvalidSystemMetadata and store nothing. Both dialects, through a real node.
 */
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { after, before, describe, it } from "node:test";
import {
  type Caller,
  call,
  checkedError,
  enc,
  form,
  okXml,
  updateSysmeta,
} from "../../helpers/clients/client.ts";
import { sysmetaXml, uniquePid } from "../../helpers/data/sysmeta.ts";
import { ADMIN, startTestNode, type TestNode, testDialects } from "../../helpers/nodes/node.ts";

const HASH: Record<string, string> = {
  md5: "md5",
  sha1: "sha1",
  "SHA-1": "sha1",
  SHA256: "sha256",
  "sha-256": "sha256",
  "Sha-384": "sha384",
  "sha-512": "sha512",
};
const CANONICAL: Record<string, string> = {
  md5: "MD5",
  sha1: "SHA-1",
  "SHA-1": "SHA-1",
  SHA256: "SHA-256",
  "sha-256": "SHA-256",
  "Sha-384": "SHA-384",
  "sha-512": "SHA-512",
};

/** System metadata whose checksum attribute is spelled `spelling`. */
function spelled(pid: string, bytes: Buffer, spelling: string, more = {}): string {
  const value = createHash(HASH[spelling] ?? "sha1")
    .update(bytes)
    .digest("hex");
  return sysmetaXml(pid, bytes, { checksum: value, ...more }).replace(
    'algorithm="SHA-1"',
    `algorithm="${spelling}"`,
  );
}

const algorithmOf = (xml: string) => /<(?:d1:)?checksum[^>]*\balgorithm="([^"]+)"/.exec(xml)?.[1];

for (const dialect of testDialects()) {
  describe(`checksum algorithm names (${dialect})`, () => {
    let mn: TestNode;
    let cn: TestNode;
    let admin: Caller;
    let cnAdmin: Caller;
    before(async () => {
      mn = await startTestNode(dialect);
      cn = await startTestNode(dialect, { role: "cn", nodeId: "urn:node:TESTCN" });
      admin = { baseUrl: mn.baseUrl, token: await mn.token(ADMIN) };
      cnAdmin = { baseUrl: cn.baseUrl, token: await cn.token(ADMIN) };
    });
    after(async () => {
      await mn.close();
      await cn.close();
    });

    for (const spelling of Object.keys(HASH)) {
      it(`create with algorithm="${spelling}" stores ${CANONICAL[spelling]}`, async () => {
        const pid = uniquePid("alg");
        const bytes = Buffer.from(`bytes for ${spelling}\n`);
        const created = await call(admin, "POST", "/object", {
          body: form({ pid, object: bytes, sysmeta: { xml: spelled(pid, bytes, spelling) } }),
        });
        assert.equal(created.status, 200, await created.text());
        const meta = await okXml(await call(admin, "GET", `/meta/${enc(pid)}`));
        assert.equal(algorithmOf(meta), CANONICAL[spelling]);
        const checksum = await okXml(await call(admin, "GET", `/checksum/${enc(pid)}`));
        assert.equal(algorithmOf(checksum), "SHA-1");
        const asked = await okXml(
          await call(admin, "GET", `/checksum/${enc(pid)}?checksumAlgorithm=${CANONICAL[spelling]}`),
        );
        assert.equal(algorithmOf(asked), CANONICAL[spelling]);
      });
    }

    it("update and updateSystemMetadata take the spellings too; the checksum is not 'changed' by one", async () => {
      const pid = uniquePid("alg-old");
      const newPid = uniquePid("alg-new");
      const bytes = Buffer.from("first\n");
      const created = await call(admin, "POST", "/object", {
        body: form({ pid, object: bytes, sysmeta: { xml: spelled(pid, bytes, "sha1") } }),
      });
      assert.equal(created.status, 200, await created.text());
      const next = Buffer.from("second\n");
      const updated = await call(admin, "PUT", `/object/${enc(pid)}`, {
        body: form({
          newPid,
          object: next,
          sysmeta: { xml: spelled(newPid, next, "sha-256", { obsoletes: pid }) },
        }),
      });
      assert.equal(updated.status, 200, await updated.text());
      assert.equal(algorithmOf(await okXml(await call(admin, "GET", `/meta/${enc(newPid)}`))), "SHA-256");
      // updateSystemMetadata sending the stored checksum spelled "sha-256" (serialVersion as read).
      const current = await okXml(await call(admin, "GET", `/meta/${enc(newPid)}`));
      const edited = current.replace('algorithm="SHA-256"', 'algorithm="sha-256"');
      const response = await updateSysmeta(admin, newPid, edited);
      assert.equal(response.status, 200, await response.text());
      assert.equal(algorithmOf(await okXml(await call(admin, "GET", `/meta/${enc(newPid)}`))), "SHA-256");
    });

    for (const unknown of ["SHA-224", "sha3-256", "crc32", "sha-1-1", "SHA 1"]) {
      it(`algorithm="${unknown}" is InvalidSystemMetadata and stores nothing`, async () => {
        const pid = uniquePid("alg-bad");
        const bytes = Buffer.from("bad\n");
        const response = await call(admin, "POST", "/object", {
          body: form({ pid, object: bytes, sysmeta: { xml: spelled(pid, bytes, unknown) } }),
        });
        const error = await checkedError(response);
        assert.equal(error.name, "InvalidSystemMetadata", error.body);
        assert.equal((await call(admin, "GET", `/meta/${enc(pid)}`)).status, 404);
      });
    }

    it("CN registerSystemMetadata stores the DataONE name", async () => {
      const pid = uniquePid("alg-cn");
      const bytes = Buffer.from("remote\n");
      const extra = "<authoritativeMemberNode>urn:node:MNA</authoritativeMemberNode>";
      const registered = await call(cnAdmin, "POST", "/meta", {
        body: form({ pid, sysmeta: { xml: spelled(pid, bytes, "md5", { extra }) } }),
      });
      assert.equal(registered.status, 200, await registered.text());
      assert.equal(algorithmOf(await okXml(await call(cnAdmin, "GET", `/meta/${enc(pid)}`))), "MD5");
      const bad = await call(cnAdmin, "POST", "/meta", {
        body: form({ pid: `${pid}x`, sysmeta: { xml: spelled(`${pid}x`, bytes, "whirlpool", { extra }) } }),
      });
      assert.equal((await checkedError(bad)).name, "InvalidSystemMetadata");
    });
  });
}
