/**
 * Uploads' limits and races: creates racing to use one upload (one wins, the others are InvalidRequest); uploads
 * of no bytes expire like any other; a subject may hold only `uploadMaxOpen` uploads at once.
 */
import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { readdir } from "node:fs/promises";
import path from "node:path";
import { describe, it } from "node:test";
import { call, checkedError, form } from "../../helpers/clients/client.ts";
import { createUpload, headUpload, patchUpload } from "../../helpers/clients/tus.ts";
import { sysmetaXml, uniquePid } from "../../helpers/data/sysmeta.ts";
import { startTestNode, testDialects, withTestNode } from "../../helpers/nodes/node.ts";
import { eventually } from "../../helpers/time/eventually.ts";
import { validateXml } from "../../helpers/validation/xmllint.ts";

const ALICE = "CN=Alice,O=d1node,C=US,DC=cilogon,DC=org";
const BOB = "CN=Bob,O=d1node,C=US,DC=cilogon,DC=org";

/** DELETE (tus termination) of the upload at `location`. */
function endUpload(location: string, token: string): Promise<Response> {
  return fetch(location, {
    method: "DELETE",
    headers: { "Tus-Resumable": "1.0.0", Authorization: `Bearer ${token}` },
  });
}

for (const dialect of testDialects()) {
  describe(`upload races (${dialect})`, () => {
    const node = withTestNode(dialect);

    it("creates racing to use one upload: one stores it, the others are InvalidRequest", async () => {
      const token = await node.token(ALICE);
      const bytes = randomBytes(200_000);
      const made = await createUpload(node.baseUrl, token, bytes.length);
      const location = made.headers.location ?? "";
      const sent = await patchUpload(location, token, 0, bytes);
      assert.ok(sent !== "cut" && sent.status === 204);
      const caller = { baseUrl: node.baseUrl, token };
      const answers = await Promise.all(
        Array.from({ length: 8 }, () => {
          const pid = uniquePid("race");
          const sysmeta = sysmetaXml(pid, bytes, { rightsHolder: ALICE });
          return call(caller, "POST", "/object", {
            body: form({ pid, objectUpload: location, sysmeta: { xml: sysmeta } }),
          });
        }),
      );
      const statuses = answers.map((a) => a.status);
      assert.equal(statuses.filter((s) => s === 200).length, 1, String(statuses));
      for (const answer of answers.filter((a) => a.status !== 200)) {
        const error = await checkedError(answer);
        assert.equal(error.status, 400, error.body);
        assert.equal(error.name, "InvalidRequest", error.body);
      }
    });
  });
}

describe("uploads of no bytes", () => {
  it("expire like any other", async () => {
    const node = await startTestNode("sqlite", { uploadExpiry: 1 });
    try {
      const token = await node.token(ALICE);
      const made = await createUpload(node.baseUrl, token, 0);
      assert.equal(made.status, 201, made.body);
      const location = made.headers.location ?? "";
      await eventually("the empty upload removed", async () =>
        (await headUpload(location, token)).status === 404 ? true : undefined,
      );
      assert.deepEqual(await readdir(path.join(node.dataDir, "store", "uploads")), []);
    } finally {
      await node.close();
    }
  });
});

describe("uploads one subject may hold", () => {
  it("are at most uploadMaxOpen; one more is InsufficientResources until one is ended", async () => {
    const node = await startTestNode("sqlite", { uploadMaxOpen: 3 });
    try {
      const token = await node.token(ALICE);
      const held: string[] = [];
      for (let i = 0; i < 3; i++) {
        const made = await createUpload(node.baseUrl, token, 1000);
        assert.equal(made.status, 201, made.body);
        held.push(made.headers.location ?? "");
      }
      const refused = await createUpload(node.baseUrl, token, 1000);
      assert.equal(refused.status, 413, refused.body);
      assert.match(refused.headers["content-type"] ?? "", /^text\/xml/);
      assert.match(refused.body, /name="InsufficientResources"/);
      await validateXml(refused.body);
      assert.equal((await createUpload(node.baseUrl, await node.token(BOB), 1000)).status, 201);
      assert.equal((await endUpload(held[0] as string, token)).status, 204);
      assert.equal((await createUpload(node.baseUrl, token, 1000)).status, 201);
    } finally {
      await node.close();
    }
  });
});
