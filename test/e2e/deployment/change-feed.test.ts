/**
 * A serving node (`d1node serve`, its own process) and another process writing the same PostgreSQL database, as a
 * `d1node worker` does: the node's answers (getSystemMetadata from its row cache, listObjects totals from its
 * pager) follow the other process's writes within moments.
 */
import assert from "node:assert/strict";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { loadOrCreateSigningKey } from "../../../src/auth/keys.ts";
import { mintToken } from "../../../src/auth/tokens.ts";
import { bulkLoadObjects } from "../../../src/db/index.ts";
import type { Database } from "../../../src/db/types.ts";
import { openNodeDatabase } from "../../../src/node/open-database.ts";
import { type Caller, call, enc } from "../../helpers/clients/client.ts";
import { storedObject } from "../../helpers/data/sysmeta.ts";
import { createTestPostgresDatabase, type TestPostgres } from "../../helpers/db/postgres.ts";
import { ADMIN, testDialects } from "../../helpers/nodes/node.ts";
import { type NodeProcess, spawnNode } from "../../helpers/nodes/process-node.ts";
import { pollUntil } from "../../helpers/time/eventually.ts";

describe("a node process hears another process's writes", {
  skip: !testDialects().includes("postgres"),
}, () => {
  let pg: TestPostgres;
  let dataDir: string;
  let node: NodeProcess | undefined;
  let other: Database | undefined;
  let caller: Caller;
  before(async () => {
    pg = await createTestPostgresDatabase();
    dataDir = await mkdtemp(path.join(tmpdir(), "d1node-feed-"));
    node = await spawnNode(["--data-dir", dataDir, "--database-url", pg.url, "--admin-subject", ADMIN]);
    const token = await mintToken(loadOrCreateSigningKey(dataDir).privateKey, { subject: ADMIN });
    caller = { baseUrl: node.baseUrl, token };
    other = await openNodeDatabase({ url: pg.url });
  });
  after(async () => {
    await node?.kill();
    await other?.close();
    await rm(dataDir, { recursive: true, force: true });
    await pg?.drop();
  });

  const serialVersion = async (pid: string) => {
    const response = await call(caller, "GET", `/meta/${enc(pid)}`);
    const body = await response.text();
    return response.status === 200
      ? Number(/<serialVersion>(\d+)<\/serialVersion>/.exec(body)?.[1])
      : response.status;
  };
  const listed = async () => {
    const body = await (await call(caller, "GET", "/object?count=1")).text();
    return Number(/total="(\d+)"/.exec(body)?.[1]);
  };

  it("getSystemMetadata and the listObjects total follow the other process's writes", async () => {
    const db = other as Database;
    await db.objects.insert(storedObject("feed-1"));
    // The node reads (and keeps) the object and the total.
    assert.equal(await serialVersion("feed-1"), 1);
    assert.equal(await serialVersion("feed-1"), 1);
    assert.equal(await listed(), 1);
    assert.equal(await listed(), 1);

    await db.objects.replaceSysmeta({ ...storedObject("feed-1").sysmeta, serialVersion: 2 });
    await db.objects.insert(storedObject("feed-2", {}, 1));
    await pollUntil(
      () => serialVersion("feed-1"),
      (v) => v === 2,
    );
    await pollUntil(listed, (n) => n === 2);

    await db.objects.remove("feed-2");
    await pollUntil(
      () => serialVersion("feed-2"),
      (status) => status === 404,
    );
    await pollUntil(listed, (n) => n === 1);
  });

  it("listObjects pages from the node's remembered positions stay right while the other process writes", async () => {
    const db = other as Database;
    await bulkLoadObjects(
      db,
      Array.from({ length: 2500 }, (_, i) => storedObject(`pos-${i}`, {}, 1_000_000 + i)),
    );
    const identifiers = async (query: string) => {
      const body = await (await call(caller, "GET", `/object?${query}`)).text();
      return {
        total: Number(/total="(\d+)"/.exec(body)?.[1]),
        pids: [...body.matchAll(/<identifier>([^<]*)<\/identifier>/g)].map((m) => m[1]),
      };
    };
    const starts = [0, 1000, 1500, 2000, 2400];
    /** The node's pages against the other process's: each list is the same one database. */
    const samePages = async () => {
      for (const start of starts) {
        const page = await identifiers(`start=${start}&count=3`);
        const truth = await db.objects.list({ replicaStatus: false }, start, 3);
        assert.equal(page.total, truth.total);
        assert.deepEqual(
          page.pids,
          truth.items.map((item) => item.identifier),
          `start=${start}`,
        );
      }
    };
    await pollUntil(
      async () => (await identifiers("count=1")).total,
      (n) => n === 2501,
    );
    // The node walks to each position once and remembers it.
    await samePages();
    await db.objects.insert(storedObject("pos-late", {}, 9_000_000));
    await db.objects.remove("pos-1200");
    await db.objects.insert(storedObject("pos-early", {}, 500_000));
    await pollUntil(
      async () => (await identifiers("count=1")).total,
      (n) => n === 2502,
    );
    await samePages();
  });
});
