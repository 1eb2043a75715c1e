/**
 * Upload URLs name only the ids the node issues: a path in an upload URL (`..%2Fkeys%2Ftoken-signing-key.pem`)
 * reaches no file of the node, and the ownership check and the upload library read one id, so a trailing slash
 * (`/uploads/U/`) or a query (`/uploads/V?x=/U`) never reaches another user's upload. Refusals name no path.
 */
import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { access, readdir, writeFile } from "node:fs/promises";
import http from "node:http";
import path from "node:path";
import { before, describe, it } from "node:test";
import { create } from "../../helpers/clients/client.ts";
import { createUpload, headUpload, patchUpload } from "../../helpers/clients/tus.ts";
import { uniquePid } from "../../helpers/data/sysmeta.ts";
import { type TestNode, testDialects, withTestNode } from "../../helpers/nodes/node.ts";

const ALICE = "CN=Alice,O=d1node,C=US,DC=cilogon,DC=org";
const BOB = "CN=Bob,O=d1node,C=US,DC=cilogon,DC=org";

interface Answer {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: string;
}

/** One tus request with `rawPath` sent exactly as written (no URL normalisation on the way). */
function raw(
  node: TestNode,
  method: string,
  rawPath: string,
  token: string,
  body?: { offset: number; bytes: Buffer },
): Promise<Answer> {
  const base = new URL(node.baseUrl);
  const headers: Record<string, string> = { "Tus-Resumable": "1.0.0", Authorization: `Bearer ${token}` };
  if (body) {
    headers["Upload-Offset"] = String(body.offset);
    headers["Content-Type"] = "application/offset+octet-stream";
    headers["Content-Length"] = String(body.bytes.length);
  }
  return new Promise((resolve, reject) => {
    const request = http.request(
      { host: base.hostname, port: base.port, method, path: `${base.pathname}/uploads/${rawPath}`, headers },
      (response) => {
        let text = "";
        response.setEncoding("utf8");
        response.on("data", (chunk) => {
          text += chunk;
        });
        response.on("end", () =>
          resolve({ status: response.statusCode ?? 0, headers: response.headers, body: text }),
        );
      },
    );
    request.on("error", reject);
    request.end(body?.bytes);
  });
}

const exists = (file: string) =>
  access(file).then(
    () => true,
    () => false,
  );

/** Every file under `folder`, relative to it. */
async function filesUnder(folder: string): Promise<string[]> {
  const entries = await readdir(folder, { recursive: true, withFileTypes: true });
  return entries.filter((e) => e.isFile()).map((e) => path.relative(folder, path.join(e.parentPath, e.name)));
}

/**
 * A refusal: 400 or 404 (501 for GET: uploads are not read back), and nothing in it (body or headers) that
 * names a folder of the machine.
 */
function assertRefusedWithoutPath(answer: Answer, node: TestNode, what: string): void {
  const refusals = what.startsWith("GET") ? [400, 404, 501] : [400, 404];
  assert.ok(refusals.includes(answer.status), `${what}: ${answer.status} ${answer.body}`);
  const said = `${answer.body} ${JSON.stringify(answer.headers)}`;
  assert.ok(!said.includes(node.dataDir), `${what} names the data folder: ${said}`);
  assert.ok(!/\/(tmp|home|var|root|etc)\//.test(said), `${what} names a path: ${said}`);
}

for (const dialect of testDialects()) {
  describe(`upload ids (${dialect})`, () => {
    const node = withTestNode(dialect);
    let alice: string;
    let bob: string;
    before(async () => {
      alice = await node.token(ALICE);
      bob = await node.token(BOB);
    });

    it("a path in an upload URL reaches no file of the node, on any method", async () => {
      const object = await create(
        { baseUrl: node.baseUrl, token: alice },
        uniquePid("kept"),
        randomBytes(1000),
        {
          rightsHolder: ALICE,
        },
      );
      assert.equal(object.status, 200, await object.text());
      const storeDir = path.join(node.dataDir, "store");
      const objectFile = (await filesUnder(path.join(storeDir, "objects")))[0];
      assert.ok(objectFile, "the object's bytes are in the store");
      await writeFile(path.join(node.dataDir, "canary"), "still here");
      const targets = [
        "..%2Fkeys%2Ftoken-signing-key.pem",
        `..%2Fstore%2Fobjects%2F${objectFile.split(path.sep).join("%2F")}`,
        "..%2Fcanary",
        "..%2F..%2F..%2F..%2F..%2F..%2F..%2F..%2Ftmp%2Fnothing-here",
        "..%2F",
        "%2E%2E%2Fcanary",
        "%2e%2e%2fcanary",
      ];
      const keep = [
        path.join(node.dataDir, "keys", "token-signing-key.pem"),
        path.join(storeDir, "objects", objectFile),
        path.join(node.dataDir, "canary"),
      ];
      for (const target of targets) {
        for (const method of ["DELETE", "HEAD", "PATCH", "GET", "OPTIONS"]) {
          const body = method === "PATCH" ? { offset: 0, bytes: Buffer.from("overwritten") } : undefined;
          const answer = await raw(node, method, target, alice, body);
          if (method === "OPTIONS") {
            assert.ok(answer.status < 500, `OPTIONS ${target}: ${answer.status}`);
          } else {
            assertRefusedWithoutPath(answer, node, `${method} ${target}`);
          }
          for (const file of keep) assert.ok(await exists(file), `${method} ${target} removed ${file}`);
        }
      }
      // Uploads still work beside the refusals.
      const fresh = await createUpload(node.baseUrl, alice, 10);
      assert.equal(fresh.status, 201, fresh.body);
    });

    it("another user's upload is out of reach through a trailing slash or a query", async () => {
      const created = await createUpload(node.baseUrl, alice, 1000);
      assert.equal(created.status, 201, created.body);
      const aliceLocation = created.headers.location ?? "";
      const u = aliceLocation.slice(aliceLocation.lastIndexOf("/") + 1);
      const sent = await patchUpload(aliceLocation, alice, 0, Buffer.alloc(10, 7));
      assert.ok(sent !== "cut" && sent.status === 204, JSON.stringify(sent));
      const bobs = await createUpload(node.baseUrl, bob, 1000);
      const bobLocation = bobs.headers.location ?? "";
      const v = bobLocation.slice(bobLocation.lastIndexOf("/") + 1);

      for (const target of [`${u}/`, `${v}?x=/${u}`, `${v}/?x=/${u}`, `${v}#/${u}`, `${u}%2F`]) {
        const head = await raw(node, "HEAD", target, bob);
        assert.notEqual(head.headers["upload-offset"], "10", `HEAD ${target} read Alice's upload`);
        const patch = await raw(node, "PATCH", target, bob, { offset: 10, bytes: Buffer.alloc(5, 1) });
        assert.notEqual(patch.status, 204, `PATCH ${target} wrote into Alice's upload`);
        const del = await raw(node, "DELETE", target, bob);
        if (del.status === 204) {
          // Only Bob's own upload may go: Alice's is still there below.
          assert.ok(target.startsWith(v), `DELETE ${target} answered 204`);
        }
        const still = await headUpload(aliceLocation, alice);
        assert.equal(still.status, 200, `after ${target}: ${still.body}`);
        assert.equal(still.headers["upload-offset"], "10", `after ${target}`);
      }
      // A malformed id is refused for Alice too, even when it ends in her own upload's id.
      assertRefusedWithoutPath(await raw(node, "HEAD", `${u}/`, alice), node, "HEAD U/");
      assertRefusedWithoutPath(await raw(node, "HEAD", `${u.toUpperCase()}`, alice), node, "HEAD upper-case");
    });
  });
}
