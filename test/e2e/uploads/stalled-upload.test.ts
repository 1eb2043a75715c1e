/**
 * An upload that sends part of its body and then nothing is ended after the upload idle timeout: answered
 * InvalidRequest, its connection closed, its temp file removed and its file descriptors freed.
 */
import assert from "node:assert/strict";
import { readdir } from "node:fs/promises";
import net from "node:net";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { create } from "../../helpers/clients/client.ts";
import { sysmetaXml, uniquePid } from "../../helpers/data/sysmeta.ts";
import { ADMIN, startTestNode, type TestNode } from "../../helpers/nodes/node.ts";

const BOUNDARY = "----d1nodestalledupload";

interface Outcome {
  /** What the node sent before closing. */
  answer: string;
  /** Milliseconds from the stall to the close. */
  closedAfterMs: number;
}

/** Sends the headers, the pid and sysmeta parts and `objectBytes` of a 50 MB object part, then nothing. */
function stalledCreate(node: TestNode, token: string, objectBytes: number): Promise<Outcome> {
  const target = new URL(`${node.baseUrl}/v2/object`);
  const pid = uniquePid("stalled");
  const body = Buffer.concat([
    Buffer.from(
      [
        `--${BOUNDARY}\r\nContent-Disposition: form-data; name="pid"\r\n\r\n${pid}\r\n`,
        `--${BOUNDARY}\r\nContent-Disposition: form-data; name="sysmeta"; filename="s.xml"\r\n\r\n`,
        `${sysmetaXml(pid, Buffer.alloc(0), { size: 50_000_000 })}\r\n`,
        `--${BOUNDARY}\r\nContent-Disposition: form-data; name="object"; filename="o.bin"\r\n\r\n`,
      ].join(""),
    ),
    Buffer.alloc(objectBytes, 1),
  ]);
  const head = [
    `POST ${target.pathname} HTTP/1.1`,
    `Host: ${target.host}`,
    `Authorization: Bearer ${token}`,
    `Content-Type: multipart/form-data; boundary=${BOUNDARY}`,
    `Content-Length: ${body.length + 50_000_000}`,
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
    socket.write(body, () => {
      stalledAt = Date.now();
    });
    // A test that fails leaves no socket behind.
    setTimeout(() => socket.destroy(), 20_000).unref();
  });
}

const openFds = async () => (await readdir("/proc/self/fd")).length;

describe("stalled uploads", () => {
  let node: TestNode;
  let token: string;
  before(async () => {
    node = await startTestNode("sqlite", { uploadIdleTimeout: 1 });
    token = await node.token(ADMIN);
  });
  after(() => node.close());

  it("are answered InvalidRequest and closed after the idle timeout, leaving no temp file", async (t) => {
    // One upload first, so that the hasher threads (and their descriptors) exist before counting.
    const warm = await create({ baseUrl: node.baseUrl, token }, uniquePid("warm"), Buffer.alloc(4 << 20, 2));
    assert.equal(warm.status, 200, await warm.text());
    const fdsBefore = await openFds();
    const outcomes = await Promise.all(Array.from({ length: 10 }, () => stalledCreate(node, token, 1 << 20)));
    for (const { answer } of outcomes) {
      assert.match(answer, /^HTTP\/1\.1 400 /, answer);
      assert.match(answer, /name="InvalidRequest"/);
      assert.match(answer, /detailCode="1102"/);
      assert.match(answer, /sent nothing for 1 s/);
    }
    t.diagnostic(`closed ${Math.max(...outcomes.map((o) => o.closedAfterMs))} ms after the stall at most`);
    assert.deepEqual(await readdir(path.join(node.dataDir, "store", "tmp")), []);
    // Each stalled upload held a socket and a temp file; both are released.
    assert.ok((await openFds()) <= fdsBefore + 2, `${await openFds()} descriptors open, ${fdsBefore} before`);
  });

  it("a stall before the object part is ended too", async () => {
    const { answer } = await stalledCreate(node, token, 0);
    assert.match(answer, /name="InvalidRequest"/);
    assert.match(answer, /sent nothing for 1 s/);
  });
});
