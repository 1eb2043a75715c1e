/**
 * A full disk under the uploads' folder: a PATCH is answered InsufficientResources (MNStorage.create: 1160) once
 * its body has arrived, rather than a reset connection, and the upload keeps the bytes written before. The folder
 * is a small tmpfs, a real filesystem that fills up; mounting one needs root.
 */
import assert from "node:assert/strict";
import { execFile, execFileSync } from "node:child_process";
import { mkdir, mkdtemp, rm } from "node:fs/promises";
import http from "node:http";
import net from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { promisify } from "node:util";
import { createUpload, headUpload } from "../../helpers/clients/tus.ts";
import { startTestNode, type TestNode } from "../../helpers/nodes/node.ts";
import { validateXml } from "../../helpers/validation/xmllint.ts";

const ALICE = "CN=Alice,O=d1node,C=US,DC=cilogon,DC=org";
const FS_BYTES = 16 * 1024 * 1024;
const UPLOAD_BYTES = 120 * 1024 * 1024;

const root = await mkdtemp(path.join(tmpdir(), "d1node-uploads-full-"));
const uploadsDir = path.join(root, "store", "uploads");
await mkdir(uploadsDir, { recursive: true });
let skip: string | undefined;
try {
  execFileSync("mount", ["-t", "tmpfs", "-o", `size=${FS_BYTES}`, "tmpfs", uploadsDir], { stdio: "pipe" });
} catch (error) {
  skip = `cannot mount a tmpfs (needs root): ${(error as Error).message.split("\n")[0]}`;
}

/** A PATCH sending its whole body before reading the answer: the answer, or the connection's error. */
function patchWhole(location: string, token: string, length: number) {
  return new Promise<{ status: number; type: string; body: string } | { error: string }>((resolve) => {
    const request = http.request(location, {
      method: "PATCH",
      headers: {
        "Tus-Resumable": "1.0.0",
        Authorization: `Bearer ${token}`,
        "Upload-Offset": "0",
        "Content-Type": "application/offset+octet-stream",
        "Content-Length": String(length),
      },
    });
    request.on("error", (error) =>
      resolve({ error: (error as NodeJS.ErrnoException).code ?? error.message }),
    );
    request.on("response", (response) => {
      let body = "";
      response.setEncoding("utf8");
      response.on("data", (chunk) => {
        body += chunk;
      });
      response.on("end", () =>
        resolve({ status: response.statusCode ?? 0, type: response.headers["content-type"] ?? "", body }),
      );
    });
    request.end(Buffer.alloc(length, 7));
  });
}

/**
 * A PATCH over a bare socket that writes its whole body, then reads: the answer, and whether a write or the
 * connection failed (the node closing it with bytes unread resets it).
 */
function patchOverSocket(location: string, token: string, length: number) {
  const url = new URL(location);
  return new Promise<{ answer: string; failure: string | undefined }>((resolve) => {
    const socket = net.connect(Number(url.port), url.hostname);
    let answer = "";
    let failure: string | undefined;
    socket.setEncoding("latin1");
    socket.on("data", (chunk: string) => {
      answer += chunk;
    });
    socket.on("error", (error: NodeJS.ErrnoException) => {
      failure ??= error.code ?? error.message;
    });
    socket.on("close", () => resolve({ answer, failure }));
    socket.write(
      [
        `PATCH ${url.pathname} HTTP/1.1`,
        `Host: ${url.host}`,
        "Tus-Resumable: 1.0.0",
        `Authorization: Bearer ${token}`,
        "Upload-Offset: 0",
        "Content-Type: application/offset+octet-stream",
        `Content-Length: ${length}`,
        "",
        "",
      ].join("\r\n"),
    );
    socket.end(Buffer.alloc(length, 7));
  });
}

describe("a full disk under the uploads", { skip: skip ?? false }, () => {
  let node: TestNode;
  before(async () => {
    node = await startTestNode("sqlite", { dataDir: root });
  });
  after(async () => {
    await node?.node.close();
    execFileSync("umount", [uploadsDir]);
    await rm(root, { recursive: true, force: true });
  });

  it("answers a PATCH InsufficientResources and keeps what was written", async () => {
    const token = await node.token(ALICE);
    const made = await createUpload(node.baseUrl, token, UPLOAD_BYTES);
    assert.equal(made.status, 201, made.body);
    const location = made.headers.location ?? "";
    const answer = await patchWhole(location, token, UPLOAD_BYTES);
    assert.ok("status" in answer, `the connection failed: ${JSON.stringify(answer)}`);
    assert.equal(answer.status, 413, answer.body);
    assert.match(answer.type, /^text\/xml/);
    assert.match(answer.body, /name="InsufficientResources" errorCode="413" detailCode="1160"/);
    await validateXml(answer.body);
    const offset = Number((await headUpload(location, token)).headers["upload-offset"]);
    assert.ok(offset > 0 && offset <= FS_BYTES, String(offset));
  });

  it("answers a client that reads only after sending its whole body (Python requests)", async () => {
    const token = await node.token(ALICE);
    const made = await createUpload(node.baseUrl, token, UPLOAD_BYTES);
    const location = made.headers.location ?? "";
    const script = `
import os, requests
r = requests.patch(os.environ["URL"], data=b"\\x07" * int(os.environ["SIZE"]), timeout=60, headers={
    "Authorization": "Bearer " + os.environ["TOKEN"], "Tus-Resumable": "1.0.0", "Upload-Offset": "0",
    "Content-Type": "application/offset+octet-stream"})
print(r.status_code)
print(r.text)
`;
    const { stdout } = await promisify(execFile)("python3", ["-c", script], {
      env: { ...process.env, URL: location, TOKEN: token, SIZE: String(UPLOAD_BYTES) },
      encoding: "utf8",
      timeout: 90_000,
    });
    assert.match(stdout, /^413\n/, stdout);
    assert.match(stdout, /InsufficientResources/);
  });

  it("reads the body's every byte before it answers and closes: the sender sees no reset", async () => {
    const token = await node.token(ALICE);
    const made = await createUpload(node.baseUrl, token, UPLOAD_BYTES);
    const { answer, failure } = await patchOverSocket(made.headers.location ?? "", token, UPLOAD_BYTES);
    assert.equal(failure, undefined, answer);
    assert.match(answer, /^HTTP\/1\.1 413 /);
    assert.match(answer, /InsufficientResources/);
  });
});
