/**
 * An inline create as d1_client sends it: pid, object, then sysmeta. The node cannot know the declared algorithm
 * while the bytes arrive, so a client's first such upload is hashed with MD5, SHA-1 and SHA-256; from then on with
 * SHA-256 and the algorithm that client declared last, as when the system metadata comes first. A client that
 * changes its algorithm still has its checksum verified (one more read of the staged file), and a wrong checksum
 * is still refused.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { type Caller, call, checkedError, form } from "../../helpers/clients/client.ts";
import { sysmetaXml, uniquePid } from "../../helpers/data/sysmeta.ts";
import { ADMIN, startTestNode, type TestNode } from "../../helpers/nodes/node.ts";

describe("object part before the system metadata (d1_client's order)", () => {
  let node: TestNode;
  let admin: Caller;
  before(async () => {
    node = await startTestNode("sqlite");
    admin = { baseUrl: node.baseUrl, token: await node.token(ADMIN) };
  });
  after(() => node.close());

  /** Creates with the object part first; the digests the node recorded. */
  const createObjectFirst = async (algorithm: "MD5" | "SHA-1" | "SHA-256", client: string) => {
    const pid = uniquePid("object-first");
    const bytes = Buffer.from(`${pid}\n`.repeat(50));
    const sysmeta = sysmetaXml(pid, bytes, { algorithm });
    const response = await call(admin, "POST", "/object", {
      headers: { "user-agent": client },
      body: form({ pid, object: bytes, sysmeta: { xml: sysmeta } }),
    });
    assert.equal(response.status, 200, await response.text());
    const stored = await node.node.ctx.db.objects.get(pid);
    assert.ok(stored);
    return stored.digests;
  };

  it("hashes a known client's upload with SHA-256 and its declared algorithm only", async () => {
    const client = "python-requests/2.32 DataONE-Python/3.5.2";
    const first = await createObjectFirst("SHA-1", client);
    assert.ok(first.md5 && first.sha1 && first.sha256, "first upload: all three");
    const next = await createObjectFirst("SHA-1", client);
    assert.deepEqual([next.md5, Boolean(next.sha1), Boolean(next.sha256)], ["", true, true]);
    // Another client is not guessed for.
    const other = await createObjectFirst("SHA-1", "curl/8.5");
    assert.ok(other.md5, "another client's first upload: all three");
  });

  it("verifies a changed algorithm and refuses a wrong checksum", async () => {
    const client = "d1-client-changes/1.0";
    await createObjectFirst("SHA-1", client);
    const changed = await createObjectFirst("MD5", client);
    assert.ok(changed.md5 && changed.sha256);
    const pid = uniquePid("object-first-wrong");
    const bytes = Buffer.from("the bytes\n");
    const sysmeta = sysmetaXml(pid, Buffer.from("other bytes\n"), { algorithm: "MD5" });
    const refused = await checkedError(
      await call(admin, "POST", "/object", {
        headers: { "user-agent": client },
        body: form({ pid, object: bytes, sysmeta: { xml: sysmeta } }),
      }),
    );
    assert.equal(refused.name, "InvalidSystemMetadata", refused.body);
  });
});
