/**
 * Request bodies cannot cost the node memory it does not mean to spend. Anonymous callers of operations that need
 * a subject are refused before their body is read; text parts are capped per operation (a simple value a few KiB,
 * a document maxDocumentBytes) and, over all requests, at maxBufferedTextBytes. What they cost the node's memory
 * is measured by `npm run bench -- request-bodies`.
 */
import assert from "node:assert/strict";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import {
  type StreamedAnswer,
  type StreamedPart,
  streamMultipart,
} from "../../helpers/clients/multipart-stream.ts";
import { ADMIN, startTestNode, type TestNode } from "../../helpers/nodes/node.ts";
import { type NodeProcess, spawnNode } from "../../helpers/nodes/process-node.ts";

const MiB = 1024 * 1024;

/** The exception name and detail code of a DataONE error document. */
function exception(answer: StreamedAnswer): { name?: string; detailCode?: string } {
  const name = /<error\b[^>]*\bname="(\w+)"/.exec(answer.text)?.[1];
  const detailCode = /<error\b[^>]*\bdetailCode="(\w+)"/.exec(answer.text)?.[1];
  return { ...(name ? { name } : {}), ...(detailCode ? { detailCode } : {}) };
}

/** Four 16 MiB parts: 64 MiB a request. */
const HUGE: StreamedPart[] = ["a", "b", "c", "d"].map((name) => ({ name, file: true, bytes: 16 * MiB }));

describe("request bodies: a node in its own process", () => {
  let dataDir: string;
  let running: NodeProcess;
  let baseUrl: string;
  before(async () => {
    dataDir = await mkdtemp(path.join(tmpdir(), "d1node-bodies-"));
    running = await spawnNode(["--data-dir", dataDir, "--admin-subject", ADMIN]);
    baseUrl = running.baseUrl;
  });
  after(async () => {
    await running.kill();
    await rm(dataDir, { recursive: true, force: true });
  });

  it("refuses 8 concurrent anonymous 64 MiB writes before reading them", async () => {
    const result = await Promise.all(
      Array.from({ length: 8 }, (_, i) =>
        i % 2 === 0
          ? streamMultipart(
              `${baseUrl}/v2/generate`,
              "POST",
              [{ name: "scheme", file: false, bytes: 4 }, ...HUGE],
              {},
              true,
            )
          : streamMultipart(
              `${baseUrl}/v2/meta`,
              "PUT",
              [{ name: "pid", file: false, bytes: 10 }, ...HUGE],
              {},
              true,
            ),
      ),
    );
    for (const [i, answer] of result.entries()) {
      assert.equal(answer.status, 401, answer.text);
      assert.deepEqual(exception(answer), {
        name: "NotAuthorized",
        detailCode: i % 2 === 0 ? "2192" : "4867",
      });
      assert.ok(answer.sent < answer.total, `answered after ${answer.sent} of ${answer.total} bytes`);
    }
  });

  it("caps the fields of 8 concurrent anonymous query forms", async () => {
    const result = await Promise.all(
      Array.from({ length: 8 }, () =>
        streamMultipart(
          `${baseUrl}/v2/query/solr/`,
          "POST",
          [
            { name: "q", file: false, bytes: 16 * MiB },
            { name: "fq", file: true, bytes: 16 * MiB },
          ],
          {},
          true,
        ),
      ),
    );
    for (const answer of result) {
      assert.equal(answer.status, 400, answer.text);
      assert.deepEqual(exception(answer), { name: "InvalidRequest", detailCode: "2823" });
      assert.match(answer.text, /larger than this node accepts/);
      assert.ok(answer.sent < answer.total, `answered after ${answer.sent} of ${answer.total} bytes`);
    }
  });
});

describe("request bodies: an authenticated caller's over-limit parts", () => {
  let node: TestNode;
  let auth: Record<string, string>;
  before(async () => {
    node = await startTestNode("sqlite", { maxDocumentBytes: 64 * 1024, maxBufferedTextBytes: 256 * 1024 });
    auth = { authorization: `Bearer ${await node.token(ADMIN)}` };
  });
  after(() => node.close());

  it("refuses a system metadata document over maxDocumentBytes with InvalidSystemMetadata", async () => {
    const answer = await streamMultipart(
      `${node.baseUrl}/v2/meta`,
      "PUT",
      [
        { name: "pid", file: false, bytes: 10 },
        { name: "sysmeta", file: true, bytes: 2 * MiB },
      ],
      auth,
    );
    assert.equal(answer.status, 400, answer.text);
    assert.deepEqual(exception(answer), { name: "InvalidSystemMetadata", detailCode: "4956" });
    assert.match(answer.text, /"sysmeta" is larger than this node accepts \(65536 bytes\)/);
  });

  it("refuses a scheme of more than a few KiB with InvalidRequest", async () => {
    for (const file of [true, false]) {
      const answer = await streamMultipart(
        `${node.baseUrl}/v2/generate`,
        "POST",
        [{ name: "scheme", file, bytes: 64 * 1024 }],
        auth,
      );
      assert.equal(answer.status, 400, answer.text);
      assert.deepEqual(exception(answer), { name: "InvalidRequest", detailCode: "2193" });
    }
  });

  it("answers ServiceFailure past maxBufferedTextBytes, and frees the budget afterwards", async () => {
    const parts = [
      { name: "pid", file: false, bytes: 10 },
      ...["sysmeta", "a", "b", "c", "d"].map((name, i) => ({ name, file: i < 3, bytes: 60 * 1024 })),
    ];
    const answer = await streamMultipart(`${node.baseUrl}/v2/meta`, "PUT", parts, auth);
    assert.equal(answer.status, 500, answer.text);
    assert.deepEqual(exception(answer), { name: "ServiceFailure", detailCode: "4868" });
    assert.match(answer.text, /maxBufferedTextBytes/);
    for (let i = 0; i < 3; i++) {
      const again = await streamMultipart(
        `${node.baseUrl}/v2/generate`,
        "POST",
        [{ name: "scheme", file: true, bytes: 4 }],
        auth,
      );
      assert.equal(again.status, 400, again.text); // "aaaa" is no scheme: read, parsed, refused for what it says
      assert.match(again.text, /not supported/);
    }
  });
});
