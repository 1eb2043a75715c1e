/**
 * A tus PATCH that sends part of its body and then nothing is ended after the upload idle timeout, as an inline
 * create is: answered InvalidRequest, its connection closed, its file descriptors freed; the bytes that arrived
 * are kept, so the client resumes from them.
 */
import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { readdir } from "node:fs/promises";
import net from "node:net";
import { after, before, describe, it } from "node:test";
import { createUpload, headUpload, patchUpload } from "../../helpers/clients/tus.ts";
import { startTestNode, type TestNode } from "../../helpers/nodes/node.ts";
import { eventually } from "../../helpers/time/eventually.ts";

const ALICE = "CN=Alice,O=d1node,C=US,DC=cilogon,DC=org";
const LENGTH = 50_000_000;

interface Outcome {
  /** What the node sent before closing. */
  answer: string;
  /** Milliseconds from the stall to the close. */
  closedAfterMs: number;
}

/** A PATCH declaring the rest of the upload that sends `bytes` and then nothing. */
function stalledPatch(location: string, token: string, bytes: Buffer): Promise<Outcome> {
  const target = new URL(location);
  const head = [
    `PATCH ${target.pathname} HTTP/1.1`,
    `Host: ${target.host}`,
    `Authorization: Bearer ${token}`,
    "Tus-Resumable: 1.0.0",
    "Upload-Offset: 0",
    "Content-Type: application/offset+octet-stream",
    `Content-Length: ${LENGTH}`,
    "",
    "",
  ].join("\r\n");
  return new Promise((resolve, reject) => {
    const socket = net.connect(Number(target.port), target.hostname);
    let answer = "";
    let stalledAt = 0;
    socket.on("data", (chunk) => {
      answer += chunk.toString();
    });
    socket.on("error", reject);
    socket.on("close", () => resolve({ answer, closedAfterMs: Date.now() - stalledAt }));
    socket.write(head);
    socket.write(bytes, () => {
      stalledAt = Date.now();
    });
    // A test that fails leaves no socket behind.
    setTimeout(() => socket.destroy(), 20_000).unref();
  });
}

const openFds = async () => (await readdir("/proc/self/fd")).length;

describe("stalled tus PATCHes", () => {
  let node: TestNode;
  before(async () => {
    node = await startTestNode("sqlite", { uploadIdleTimeout: 1 });
  });
  after(() => node.close());

  it("are answered InvalidRequest and closed after the idle timeout; what arrived is kept", async (t) => {
    const token = await node.token(ALICE);
    const uploads: string[] = [];
    for (let i = 0; i < 10; i++) {
      const created = await createUpload(node.baseUrl, token, LENGTH);
      assert.equal(created.status, 201, created.body);
      uploads.push(created.headers.location ?? "");
    }
    // One upload's bytes first, so that the upload hasher threads (and their descriptors) exist before counting.
    const warm = await patchUpload(uploads[0] as string, token, 0, randomBytes(1 << 20));
    assert.ok(warm !== "cut" && warm.status === 204);
    const rest = uploads.slice(1);
    const fdsBefore = await openFds();
    const sent = randomBytes(3 << 20);
    const outcomes = await Promise.all(rest.map((location) => stalledPatch(location, token, sent)));
    for (const { answer } of outcomes) {
      assert.match(answer, /^HTTP\/1\.1 400 /, answer);
      assert.match(answer, /name="InvalidRequest"/);
      assert.match(answer, /sent nothing for 1 s/);
    }
    const slowest = Math.max(...outcomes.map((o) => o.closedAfterMs));
    t.diagnostic(`closed ${slowest} ms after the stall at most`);
    assert.ok(slowest < 10_000, `${slowest} ms`);
    await eventually("descriptors released", async () =>
      (await openFds()) <= fdsBefore + 2 ? true : undefined,
    );
    // The bytes that arrived are the upload's: it continues from them.
    const location = rest[0] as string;
    const offset = Number((await headUpload(location, token)).headers["upload-offset"]);
    assert.equal(offset, sent.length);
    const more = await patchUpload(location, token, offset, randomBytes(1000));
    assert.ok(more !== "cut" && more.status === 204, JSON.stringify(more));
    assert.equal(more.headers["upload-offset"], String(offset + 1000));
  });
});
