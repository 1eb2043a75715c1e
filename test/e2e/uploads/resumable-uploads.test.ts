/**
 * Resumable uploads (tus 1.0 at {basePath}/uploads) and MNStorage.create / update with `objectUpload`: an upload
 * cut off five times and resumed (a new token each time) is created and read back byte for byte; nobody but its
 * creator may continue or reference it; a refused create leaves it for another try, a used one is gone; size limit,
 * expiry, and a node restart in the middle of an upload.
 */
import assert from "node:assert/strict";
import { createHash, randomBytes } from "node:crypto";
import { readdir } from "node:fs/promises";
import path from "node:path";
import { describe, it } from "node:test";
import { type Caller, call, checkedError, form, update } from "../../helpers/clients/client.ts";
import { createUpload, headUpload, patchUpload } from "../../helpers/clients/tus.ts";
import { sysmetaXml, uniquePid } from "../../helpers/data/sysmeta.ts";
import { startTestNode, type TestNode, testDialects, withTestNode } from "../../helpers/nodes/node.ts";
import { eventually } from "../../helpers/time/eventually.ts";

const ALICE = "CN=Alice,O=d1node,C=US,DC=cilogon,DC=org";
const BOB = "CN=Bob,O=d1node,C=US,DC=cilogon,DC=org";

/** Sends `bytes` into the upload at `location`, killing the connection `cuts` times part-way, then finishing. */
async function uploadWithCuts(node: TestNode, location: string, bytes: Buffer, cuts: number): Promise<void> {
  for (let cut = 0; cut < cuts; cut++) {
    // A token renewed between PATCHes: same subject, new credentials.
    const token = await node.token(ALICE);
    const offset = Number((await headUpload(location, token)).headers["upload-offset"]);
    const step = Math.floor((bytes.length - offset) / (cuts - cut + 1));
    assert.equal(await patchUpload(location, token, offset, bytes.subarray(offset), step), "cut");
    // The node may still be writing what arrived before the cut: wait until the offset moved.
    await eventually("the offset after a cut", async () => {
      const now = Number((await headUpload(location, token)).headers["upload-offset"]);
      return now > offset ? now : undefined;
    });
  }
  const token = await node.token(ALICE);
  const offset = Number((await headUpload(location, token)).headers["upload-offset"]);
  const done = await patchUpload(location, token, offset, bytes.subarray(offset));
  assert.ok(done !== "cut" && done.status === 204, JSON.stringify(done));
  assert.equal(done.headers["upload-offset"], String(bytes.length));
}

async function newUpload(node: TestNode, length: number, subject = ALICE): Promise<string> {
  const created = await createUpload(node.baseUrl, await node.token(subject), length);
  assert.equal(created.status, 201, created.body);
  const location = created.headers.location ?? "";
  assert.ok(location.startsWith(`${node.baseUrl}/uploads/`), location);
  return location;
}

/** The exception of a refused call, checked against the XSD, with its status. */
async function refusal(response: Response, status: number): Promise<{ name: string; description: string }> {
  const error = await checkedError(response);
  assert.equal(error.status, status, error.body);
  return { name: error.name, description: /<description>([^<]*)</.exec(error.body)?.[1] ?? "" };
}

function createFromUpload(c: Caller, pid: string, location: string, sysmeta: string): Promise<Response> {
  return call(c, "POST", "/object", {
    body: form({ pid, objectUpload: location, sysmeta: { xml: sysmeta } }),
  });
}

for (const dialect of testDialects()) {
  describe(`resumable uploads (${dialect})`, () => {
    const node = withTestNode(dialect, { uploadMaxSize: 32 << 20 });

    it("an upload cut off 5 times is resumed, created from, and read back whole", async () => {
      const bytes = randomBytes(12 << 20);
      const location = await newUpload(node, bytes.length);
      await uploadWithCuts(node, location, bytes, 5);
      const alice = { baseUrl: node.baseUrl, token: await node.token(ALICE) };
      const pid = uniquePid("tus");
      const sysmeta = sysmetaXml(pid, bytes, { rightsHolder: ALICE });
      const created = await createFromUpload(alice, pid, location, sysmeta);
      assert.equal(created.status, 200, await created.text());
      const read = await call(alice, "GET", `/object/${encodeURIComponent(pid)}`);
      assert.equal(read.status, 200);
      const back = Buffer.from(await read.arrayBuffer());
      assert.equal(
        createHash("sha256").update(back).digest("hex"),
        createHash("sha256").update(bytes).digest("hex"),
      );
      const checksum = await call(alice, "GET", `/checksum/${encodeURIComponent(pid)}?checksumAlgorithm=MD5`);
      assert.match(await checksum.text(), new RegExp(createHash("md5").update(bytes).digest("hex")));
      // Used once: gone, and its file moved into the store (no copy left behind).
      const again = await createFromUpload(alice, uniquePid("tus-again"), location, sysmeta);
      assert.equal((await refusal(again, 400)).name, "InvalidRequest");
      assert.deepEqual(await readdir(path.join(node.dataDir, "store", "uploads")), []);
    });

    it("a refused create leaves the upload for a corrected one; update takes uploads too", async () => {
      const bytes = randomBytes(300_000);
      const location = await newUpload(node, bytes.length);
      const token = await node.token(ALICE);
      const sent = await patchUpload(location, token, 0, bytes);
      assert.ok(sent !== "cut" && sent.status === 204);
      const alice = { baseUrl: node.baseUrl, token };
      const pid = uniquePid("tus-refused");
      const wrong = sysmetaXml(pid, Buffer.from("other bytes of another size"), { rightsHolder: ALICE });
      const refused = await createFromUpload(alice, pid, location, wrong);
      assert.equal((await refusal(refused, 400)).name, "InvalidSystemMetadata");
      const notFound = await call(alice, "GET", `/meta/${encodeURIComponent(pid)}`);
      assert.equal(notFound.status, 404);
      const right = sysmetaXml(pid, bytes, { rightsHolder: ALICE });
      const created = await createFromUpload(alice, pid, location, right);
      assert.equal(created.status, 200, await created.text());

      const next = randomBytes(70_000);
      const nextLocation = await newUpload(node, next.length);
      assert.ok(((await patchUpload(nextLocation, token, 0, next)) as { status: number }).status === 204);
      const newPid = uniquePid("tus-update");
      const sysmeta = sysmetaXml(newPid, next, { rightsHolder: ALICE, obsoletes: pid });
      const updated = await call(alice, "PUT", `/object/${encodeURIComponent(pid)}`, {
        body: form({ newPid, objectUpload: nextLocation, sysmeta: { xml: sysmeta } }),
      });
      assert.equal(updated.status, 200, await updated.text());
      const read = await call(alice, "GET", `/object/${encodeURIComponent(newPid)}`);
      assert.deepEqual(Buffer.from(await read.arrayBuffer()), next);
      // An inline update still works beside it.
      const inline = await update(alice, newPid, uniquePid("inline"), Buffer.from("inline"), {
        rightsHolder: ALICE,
      });
      assert.equal(inline.status, 200, await inline.text());
    });

    it("an unfinished upload is refused by create, as is both object and objectUpload", async () => {
      const bytes = randomBytes(100_000);
      const location = await newUpload(node, bytes.length);
      const token = await node.token(ALICE);
      await patchUpload(location, token, 0, bytes.subarray(0, 1000));
      const alice = { baseUrl: node.baseUrl, token };
      const pid = uniquePid("tus-unfinished");
      const sysmeta = sysmetaXml(pid, bytes, { rightsHolder: ALICE });
      const early = await createFromUpload(alice, pid, location, sysmeta);
      const error = await refusal(early, 400);
      assert.equal(error.name, "InvalidRequest");
      assert.match(error.description, /not finished: it has 1000 of 100000 bytes/);
      const both = await call(alice, "POST", "/object", {
        body: form({ pid, object: bytes, objectUpload: location, sysmeta: { xml: sysmeta } }),
      });
      assert.equal((await refusal(both, 400)).name, "InvalidRequest");
    });

    it("only the creator may continue, inspect or reference an upload; anonymous callers none", async () => {
      const bytes = randomBytes(50_000);
      const location = await newUpload(node, bytes.length);
      const bob = await node.token(BOB);
      assert.equal((await headUpload(location, bob)).status, 401);
      const theirs = await patchUpload(location, bob, 0, bytes);
      assert.ok(theirs !== "cut" && theirs.status === 401, JSON.stringify(theirs));
      assert.equal((await headUpload(location, await node.token(ALICE))).headers["upload-offset"], "0");
      assert.ok(
        ((await patchUpload(location, await node.token(ALICE), 0, bytes)) as { status: number }).status ===
          204,
      );
      const pid = uniquePid("tus-bob");
      const sysmeta = sysmetaXml(pid, bytes, { rightsHolder: BOB });
      const refused = await createFromUpload({ baseUrl: node.baseUrl, token: bob }, pid, location, sysmeta);
      assert.equal((await refusal(refused, 401)).name, "NotAuthorized");
      assert.equal((await createUpload(node.baseUrl, undefined, 10)).status, 401);
      assert.equal((await headUpload(location, undefined)).status, 401);
    });

    it("refuses an upload larger than uploadMaxSize", async () => {
      const tooLarge = await createUpload(node.baseUrl, await node.token(ALICE), (32 << 20) + 1);
      assert.equal(tooLarge.status, 413, tooLarge.body);
    });
  });
}

describe("resumable uploads: expiry and restarts", () => {
  it("removes uploads older than uploadExpiry", async () => {
    const node = await startTestNode("sqlite", { uploadExpiry: 1 });
    try {
      const location = await newUpload(node, 1000);
      const token = await node.token(ALICE);
      await patchUpload(location, token, 0, randomBytes(10));
      await eventually("the expired upload removed", async () =>
        (await headUpload(location, token)).status === 404 ? true : undefined,
      );
      assert.deepEqual(await readdir(path.join(node.dataDir, "store", "uploads")), []);
    } finally {
      await node.close();
    }
  });

  it("continues an upload after the node restarted in the middle of it", async () => {
    const first = await startTestNode("sqlite");
    const dataDir = first.dataDir;
    const bytes = randomBytes(5 << 20);
    const location = await newUpload(first, bytes.length);
    const token = await first.token(ALICE);
    assert.equal(await patchUpload(location, token, 0, bytes, 2 << 20), "cut");
    await eventually("bytes before the cut", async () =>
      Number((await headUpload(location, token)).headers["upload-offset"]) > 0 ? true : undefined,
    );
    await first.node.close();
    const second = await startTestNode("sqlite", { dataDir, port: Number(new URL(first.baseUrl).port) });
    try {
      const renewed = await second.token(ALICE);
      const offset = Number((await headUpload(location, renewed)).headers["upload-offset"]);
      assert.ok(offset > 0 && offset < bytes.length, String(offset));
      const rest = await patchUpload(location, renewed, offset, bytes.subarray(offset));
      assert.ok(rest !== "cut" && rest.status === 204);
      const pid = uniquePid("tus-restart");
      const alice = { baseUrl: second.baseUrl, token: renewed };
      const created = await createFromUpload(
        alice,
        pid,
        location,
        sysmetaXml(pid, bytes, { rightsHolder: ALICE }),
      );
      assert.equal(created.status, 200, await created.text());
      const read = await call(alice, "GET", `/object/${encodeURIComponent(pid)}`);
      assert.deepEqual(Buffer.from(await read.arrayBuffer()), bytes);
    } finally {
      await second.close();
    }
  });
});
