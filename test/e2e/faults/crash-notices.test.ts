/**
 * No change notice is lost to a crash: what must follow a write (the MN's notice to its CN, the CN's announcement
 * to the nodes holding an object) is queued inside the write's transaction (src/objects/write.ts). The node is
 * killed (SIGKILL, D1NODE_CRASH_AFTER_COMMIT) right after the write commits, before anything after the commit runs;
 * restarted, it still delivers the notice (MN) and holds the announcement in its queue (CN); likewise the CN's
 * bookkeeping of a replica reported failed (the node's record, the object's replicas planned again).
 */
import assert from "node:assert/strict";
import { once } from "node:events";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { createServer, type Server } from "node:http";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, describe, it } from "node:test";
import { loadOrCreateSigningKey } from "../../../src/auth/keys.ts";
import { mintToken } from "../../../src/auth/tokens.ts";
import { taskRepository } from "../../../src/db/tasks.ts";
import type { Database } from "../../../src/db/types.ts";
import { openNodeDatabase } from "../../../src/node/open-database.ts";
import { REPLICATE_PLAN, SYSMETA_CHANGED } from "../../../src/tasks/kinds.ts";
import type { Replica, SystemMetadata } from "../../../src/types/sysmeta.ts";
import { type Caller, call, create, enc, form, okXml } from "../../helpers/clients/client.ts";
import { storedObject, uniquePid } from "../../helpers/data/sysmeta.ts";
import { createTestPostgresDatabase, type TestPostgres } from "../../helpers/db/postgres.ts";
import { ADMIN, testDialects } from "../../helpers/nodes/node.ts";
import { type NodeProcess, spawnNode } from "../../helpers/nodes/process-node.ts";
import { eventually } from "../../helpers/time/eventually.ts";

const FAR_MN = "urn:node:FARMN";
const REPLICA_MN = "urn:node:REPLICAMN";

/** A stand-in CN that records the PIDs it is asked to synchronize (and answers everything else NotFound). */
async function recordingCn(): Promise<{ server: Server; url: string; synchronized: string[] }> {
  const synchronized: string[] = [];
  const server = createServer((request, response) => {
    let body = "";
    request.on("data", (chunk: Buffer) => {
      body += chunk.toString();
    });
    request.on("end", () => {
      if (request.method === "POST" && request.url?.endsWith("/synchronize")) {
        const pid = /name="pid"\r\n\r\n([^\r]*)/.exec(body)?.[1];
        if (pid) synchronized.push(pid);
        response.writeHead(200, { "Content-Type": "text/xml" }).end("<boolean>true</boolean>");
        return;
      }
      response.writeHead(404).end();
    });
  });
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  const address = server.address();
  const port = typeof address === "object" && address ? address.port : 0;
  return { server, url: `http://127.0.0.1:${port}/cn`, synchronized };
}

/** Runs `write` against a node started with the crash point armed; resolves once the node is gone. */
async function crashingAfterCommit(args: string[], write: (node: NodeProcess) => Promise<unknown>) {
  process.env.D1NODE_CRASH_AFTER_COMMIT = "1";
  let node: NodeProcess;
  try {
    node = await spawnNode(args);
  } finally {
    delete process.env.D1NODE_CRASH_AFTER_COMMIT;
  }
  const exited = once(node.child, "exit");
  await write(node).catch(() => undefined); // the connection breaks: the node died mid-answer
  const [, signal] = (await exited) as [number | null, string | null];
  assert.equal(signal, "SIGKILL", "the node was to kill itself after the commit");
}

/**
 * The tasks of `kind` in the queue, waiting or leased. The node's own worker (polling every 200 ms) may lease the
 * task between the commit and the kill; that lease is an hour expired for this clock, so the task is found either way.
 */
async function queuedTasks(db: Database, dialect: "sqlite" | "postgres", kind: string) {
  const anHourLater = { now: () => Date.now() + 3_600_000 };
  const tasks = await taskRepository(db.kysely, dialect, anHourLater).claim([kind], 10, 60_000);
  return tasks.map((task) => task.payload);
}

for (const dialect of testDialects()) {
  describe(`crash right after a write's commit (${dialect})`, () => {
    const cleanups: (() => Promise<unknown>)[] = [];
    after(async () => {
      for (const cleanup of cleanups.reverse()) await cleanup();
    });

    const place = async (extra: Record<string, unknown>) => {
      const dataDir = await mkdtemp(path.join(tmpdir(), "d1node-crash-notice-"));
      cleanups.push(() => rm(dataDir, { recursive: true, force: true }));
      let pg: TestPostgres | undefined;
      if (dialect === "postgres") {
        pg = await createTestPostgresDatabase();
        cleanups.push(() => (pg as TestPostgres).drop());
      }
      const configFile = path.join(dataDir, "config.json");
      await writeFile(configFile, JSON.stringify(extra));
      const args = ["--config", configFile, "--data-dir", dataDir, "--admin-subject", ADMIN];
      if (pg) args.push("--database-url", pg.url);
      const token = await mintToken(loadOrCreateSigningKey(dataDir).privateKey, { subject: ADMIN });
      const database = () =>
        openNodeDatabase(pg ? { url: pg.url } : { sqlitePath: path.join(dataDir, "d1node.sqlite") });
      return { args, token, database };
    };

    it("MN: the notice to the CN of a create is delivered after the restart", {
      timeout: 120_000,
    }, async () => {
      const cn = await recordingCn();
      cleanups.push(() => new Promise((resolve) => cn.server.close(resolve)));
      const { args, token } = await place({ cnBaseUrl: cn.url });
      const pid = uniquePid("crash-notice");
      await crashingAfterCommit(args, (node) =>
        create({ baseUrl: node.baseUrl, token }, pid, Buffer.from("kept across the crash")),
      );
      assert.deepEqual(cn.synchronized, [], "nothing was sent before the crash");

      const restarted = await spawnNode(args);
      cleanups.push(() => restarted.kill("SIGTERM"));
      const caller: Caller = { baseUrl: restarted.baseUrl, token };
      await okXml(await call(caller, "GET", `/meta/${enc(pid)}`)); // the write itself committed
      await eventually("CNRead.synchronize of the created object", async () =>
        cn.synchronized.includes(pid) ? true : undefined,
      );
    });

    /** A CN whose record of `pid`, held by FAR_MN, is written before the node starts (no bytes here). */
    const cnHolding = async (pid: string, overrides: Partial<SystemMetadata> = {}) => {
      const placed = await place({ role: "cn", nodeId: "urn:node:CRASHCN" });
      const before = await placed.database();
      try {
        const record = storedObject(pid, {
          originMemberNode: FAR_MN,
          authoritativeMemberNode: FAR_MN,
          ...overrides,
        });
        await before.objects.insertMany([{ ...record, contentKey: "" }]);
      } finally {
        await before.close();
      }
      return placed;
    };

    it("CN: the announcement of a system metadata change is queued", { timeout: 120_000 }, async () => {
      const pid = uniquePid("crash-announce");
      const { args, token, database } = await cnHolding(pid);

      const policy =
        '<?xml version="1.0" encoding="UTF-8"?><d1:accessPolicy xmlns:d1="http://ns.dataone.org/service/types/v1">' +
        "<allow><subject>public</subject><permission>write</permission></allow></d1:accessPolicy>";
      await crashingAfterCommit(args, (node) =>
        call({ baseUrl: node.baseUrl, token }, "PUT", `/accessRules/${enc(pid)}`, {
          body: form({ accessPolicy: { xml: policy }, serialVersion: "1" }),
        }),
      );

      const db = await database();
      try {
        const changed = await db.objects.get(pid);
        assert.equal(changed?.sysmeta.serialVersion, 2, "the change itself committed");
        assert.deepEqual(await queuedTasks(db, dialect, SYSMETA_CHANGED), [{ pid, nodeId: FAR_MN }]);
      } finally {
        await db.close();
      }
    });

    it("CN: a replica reported failed is counted and its object planned again", {
      timeout: 120_000,
    }, async () => {
      const pid = uniquePid("crash-replica-failed");
      const replica: Replica = {
        replicaMemberNode: REPLICA_MN,
        replicationStatus: "requested",
        replicaVerified: new Date("2024-01-01T00:00:00Z"),
      };
      const { args, token, database } = await cnHolding(pid, { replicas: [replica] });
      await crashingAfterCommit(args, (node) =>
        call({ baseUrl: node.baseUrl, token }, "PUT", `/replicaNotifications/${enc(pid)}`, {
          body: form({ nodeRef: REPLICA_MN, status: "failed" }),
        }),
      );

      const db = await database();
      try {
        const changed = await db.objects.get(pid);
        assert.equal(changed?.sysmeta.replicas[0]?.replicationStatus, "failed", "the report committed");
        assert.deepEqual(await queuedTasks(db, dialect, REPLICATE_PLAN), [{ pid }]);
        assert.equal((await db.replicaNodes.all()).get(REPLICA_MN)?.failures, 1);
      } finally {
        await db.close();
      }
    });
  });
}
