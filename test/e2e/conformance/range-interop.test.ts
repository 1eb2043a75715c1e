/**
 * The official DataONE Python client (d1_client MemberNodeClient_2_0) against ranges and entity tags: get,
 * get_and_save and describe keep working, and its requests carrying Range or If-None-Match (vendorSpecific
 * headers) get 206 and 304.
 */
import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { after, before, describe, it } from "node:test";
import { type Caller, create } from "../../helpers/clients/client.ts";
import { INTEROP_SKIP, runPythonScript } from "../../helpers/clients/interop.ts";
import { uniquePid } from "../../helpers/data/sysmeta.ts";
import { ADMIN, startTestNode, type TestNode } from "../../helpers/nodes/node.ts";

const SCRIPT = `
import sys, io, json, base64
import d1_client.mnclient_2_0 as mn
client = mn.MemberNodeClient_2_0(sys.argv[1])
pid = sys.argv[2]
whole = client.get(pid).content
saved = io.BytesIO()
client.get_and_save(pid, saved)
head = client.describe(pid)
etag = head["ETag"]
ranged = client.getResponse(pid, vendorSpecific={"Range": "bytes=100-199"})
cached = client.getResponse(pid, vendorSpecific={"If-None-Match": etag})
print(json.dumps({
  "whole": base64.b64encode(whole).decode(),
  "saved": base64.b64encode(saved.getvalue()).decode(),
  "etag": etag,
  "acceptRanges": head.get("Accept-Ranges"),
  "checksum": head.get("DataONE-Checksum"),
  "rangedStatus": ranged.status_code,
  "contentRange": ranged.headers.get("Content-Range"),
  "ranged": base64.b64encode(ranged.content).decode(),
  "cachedStatus": cached.status_code,
}))
`;

describe("Ranges and entity tags with the DataONE Python client", { skip: INTEROP_SKIP }, () => {
  let node: TestNode;
  const pid = uniquePid("range-py");
  const bytes = randomBytes(150 * 1024);

  before(async () => {
    node = await startTestNode("sqlite");
    const admin: Caller = { baseUrl: node.baseUrl, token: await node.token(ADMIN) };
    assert.equal((await create(admin, pid, bytes)).status, 200);
  });
  after(() => node.close());

  it("get, get_and_save and describe as before; Range is 206 and If-None-Match 304", async () => {
    const result = JSON.parse(await runPythonScript(SCRIPT, [node.baseUrl, pid])) as Record<string, unknown>;
    assert.deepEqual(Buffer.from(String(result.whole), "base64"), bytes);
    assert.deepEqual(Buffer.from(String(result.saved), "base64"), bytes);
    assert.match(String(result.etag), /^"sha256-[0-9a-f]{64}"$/);
    assert.equal(result.acceptRanges, "bytes");
    assert.match(String(result.checksum), /^SHA-1,[0-9a-f]{40}$/);
    assert.equal(result.rangedStatus, 206);
    assert.equal(result.contentRange, `bytes 100-199/${bytes.length}`);
    assert.deepEqual(Buffer.from(String(result.ranged), "base64"), bytes.subarray(100, 200));
    assert.equal(result.cachedStatus, 304);
  });
});
