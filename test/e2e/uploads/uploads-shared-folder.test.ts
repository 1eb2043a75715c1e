/**
 * Two serving processes on one data folder and one PostgreSQL database: concurrent PATCHes at one offset of one
 * upload, one to each process, then a create from it. An upload is written by one request at a time across the
 * processes, so what is stored always has the checksum it is stored under (or the create is refused); never bytes
 * under another checksum.
 */
import assert from "node:assert/strict";
import { createHash, randomBytes } from "node:crypto";
import { readdirSync, readlinkSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import http from "node:http";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { loadOrCreateSigningKey } from "../../../src/auth/keys.ts";
import { mintToken } from "../../../src/auth/tokens.ts";
import { call, form } from "../../helpers/clients/client.ts";
import { createUpload } from "../../helpers/clients/tus.ts";
import { sysmetaXml, uniquePid } from "../../helpers/data/sysmeta.ts";
import { createTestPostgresDatabase, type TestPostgres } from "../../helpers/db/postgres.ts";
import { type NodeProcess, spawnNode } from "../../helpers/nodes/process-node.ts";
import { eventually } from "../../helpers/time/eventually.ts";

const ALICE = "CN=Alice,O=d1node,C=US,DC=cilogon,DC=org";
const SIZE = 4 << 20;
const ROUNDS = 4;
/** What each PATCH sends before both are under way: less than one 1 MiB write, so the file stays empty. */
const PART = 256 << 10;

/** Whether process `node` has upload `id`'s file open. */
function holdsOpen(node: NodeProcess, id: string): boolean {
  const fds = `/proc/${node.child.pid}/fd`;
  return readdirSync(fds).some((fd) => {
    try {
      return readlinkSync(`${fds}/${fd}`).endsWith(`/uploads/${id}`);
    } catch {
      return false;
    }
  });
}

/** Waits until `done` holds or `ms` passed (a process kept waiting by a lock never opens the file). */
async function waitAtMost(ms: number, done: () => boolean): Promise<void> {
  const until = Date.now() + ms;
  while (!done() && Date.now() < until) await new Promise((resolve) => setTimeout(resolve, 20));
}

/** A PATCH at offset 0 declaring `length` bytes, whose body is sent piece by piece; `end` gives the status. */
function openPatch(location: string, token: string, length: number) {
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
  const answered = new Promise<number>((resolve, reject) => {
    request.on("response", (response) => {
      response.resume();
      resolve(response.statusCode ?? 0);
    });
    request.on("error", reject);
  });
  return {
    send: (bytes: Buffer) => new Promise<void>((resolve) => request.write(bytes, () => resolve())),
    end: (bytes: Buffer) => {
      request.end(bytes);
      return answered;
    },
  };
}

describe("uploads on one data folder shared by two processes", {
  skip: process.env.D1NODE_TEST_PG === "skip",
}, () => {
  let dir: string;
  let database: TestPostgres;
  let nodes: NodeProcess[] = [];
  let token: string;
  before(async () => {
    dir = await mkdtemp(path.join(tmpdir(), "d1node-shared-uploads-"));
    database = await createTestPostgresDatabase();
    token = await mintToken(loadOrCreateSigningKey(dir).privateKey, { subject: ALICE });
    const args = ["--data-dir", dir, "--database-url", database.url];
    nodes = [await spawnNode(args), await spawnNode(args)];
  });
  after(async () => {
    await Promise.all(nodes.map((node) => node.kill()));
    await database?.drop();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it("never stores bytes under a checksum they do not have", { timeout: 300_000 }, async () => {
    const [a, b] = nodes as [NodeProcess, NodeProcess];
    let created = 0;
    for (let round = 0; round < ROUNDS; round++) {
      const made = await createUpload(a.baseUrl, token, SIZE, { checksumAlgorithm: "SHA-1" });
      assert.equal(made.status, 201, made.body);
      const location = made.headers.location ?? "";
      const onB = location.replace(a.baseUrl, b.baseUrl);
      const id = location.slice(location.lastIndexOf("/") + 1);
      const mine = randomBytes(SIZE);
      const theirs = randomBytes(SIZE);
      // The same offset, one PATCH to each process, overlapping: both are under way (A has the upload's file
      // open, B too unless something keeps it waiting), then A sends all its bytes, then B.
      const first = openPatch(location, token, SIZE);
      await first.send(mine.subarray(0, PART));
      await eventually("A writing", async () => (holdsOpen(a, id) ? true : undefined));
      const second = openPatch(onB, token, SIZE);
      await second.send(theirs.subarray(0, PART));
      await waitAtMost(3000, () => holdsOpen(b, id));
      const firstStatus = await first.end(mine.subarray(PART));
      const statuses = [firstStatus, await second.end(theirs.subarray(PART))];
      assert.equal(firstStatus, 204);
      // Each process in turn is asked to create the object with the checksum of the bytes it was sent.
      const [creator, sent] = round % 2 === 0 ? [a, mine] : [b, theirs];
      const caller = { baseUrl: creator.baseUrl, token };
      const pid = uniquePid("shared");
      const sysmeta = sysmetaXml(pid, sent, { rightsHolder: ALICE });
      const answer = await call(caller, "POST", "/object", {
        body: form({ pid, objectUpload: location, sysmeta: { xml: sysmeta } }),
      });
      const text = await answer.text();
      if (answer.status !== 200) {
        assert.match(text, /InvalidSystemMetadata/, `round ${round} (${statuses}): ${text}`);
        continue;
      }
      created++;
      const read = await call(caller, "GET", `/object/${encodeURIComponent(pid)}`);
      assert.equal(
        createHash("sha256")
          .update(Buffer.from(await read.arrayBuffer()))
          .digest("hex"),
        createHash("sha256").update(sent).digest("hex"),
        `round ${round} (${statuses}): the stored bytes are not those of the checksum they were created with`,
      );
    }
    assert.ok(created > 0, "at least one round stored its object");
  });
});
