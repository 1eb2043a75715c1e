/**
 * Several processes on one PostgreSQL database: each hears the others' object writes (NOTIFY on commit) and
 * forgets what it kept of them (row cache, list positions and totals); while its listening connection is down it
 * keeps nothing. Two handles on one database stand for two processes (each has its own pool and listener).
 */
import assert from "node:assert/strict";
import net from "node:net";
import { before, describe, it } from "node:test";
import { sql } from "kysely";
import type pg from "pg";
import { APPLICATION_NAME, parsePayload, payloadOf } from "../../../src/db/engine/change-feed.ts";
import { bulkLoadObjects } from "../../../src/db/index.ts";
import type { Database } from "../../../src/db/types.ts";
import { openNodeDatabase } from "../../../src/node/open-database.ts";
import { storedObject } from "../../helpers/data/sysmeta.ts";
import { forEachDialect } from "../../helpers/db/databases.ts";
import { createTestPostgresDatabase, withAdmin } from "../../helpers/db/postgres.ts";
import { testDialects } from "../../helpers/nodes/node.ts";
import { pollUntil } from "../../helpers/time/eventually.ts";

const version = async (db: Database, pid: string) => (await db.objects.get(pid))?.sysmeta.serialVersion;
const total = async (db: Database) => (await db.objects.list({}, 0, 1)).total;

/** Changes a row behind the repositories' back: no process hears of it, so only an uncached read sees it. */
async function silentlyRename(db: Database, pid: string, fileName: string): Promise<void> {
  await db.kysely.updateTable("objects").set({ file_name: fileName }).where("pid", "=", pid).execute();
}

describe("change feed payloads", () => {
  it("name the written PIDs once each and the lowest list key, or any object when they do not fit", () => {
    assert.deepEqual(parsePayload(payloadOf("s1", ["a", "b,c", "a", 'd"é'], [5, "a"])), {
      sender: "s1",
      pids: ["a", "b,c", 'd"é'],
      from: [5, "a"],
    });
    const many = Array.from({ length: 100 }, (_, i) => `${"é".repeat(40)}-${i}`);
    const payload = payloadOf("s1", many, [7, 0]);
    assert.equal(payload, 's1 {"from":[7,0]}');
    assert.deepEqual(parsePayload(payload), { sender: "s1", pids: undefined, from: [7, 0] });
    assert.deepEqual(parsePayload(payloadOf("s1", "*")), { sender: "s1", pids: undefined, from: undefined });
    assert.deepEqual(parsePayload("s2 not json"), { sender: "s2", pids: undefined, from: undefined });
    // An earlier version's notices: a bare array of PIDs, a bare sender.
    assert.deepEqual(parsePayload('s3 ["x"]'), { sender: "s3", pids: ["x"], from: undefined });
    assert.deepEqual(parsePayload("s4"), { sender: "s4", pids: undefined, from: undefined });
  });
});

forEachDialect((name, open) => {
  describe("row cache", () => {
    it("answers a get from memory once read (a change no write reported stays unseen)", async () => {
      const db = await open();
      await db.objects.insert(storedObject("cached-1"));
      await db.objects.get("cached-1");
      await silentlyRename(db, "cached-1", "behind-its-back.csv");
      assert.equal((await db.objects.get("cached-1"))?.sysmeta.fileName, undefined);
      // A write through the repository is heard at once.
      await db.objects.replaceSysmeta({ ...storedObject("cached-1").sysmeta, serialVersion: 2 });
      assert.equal(await version(db, "cached-1"), 2);
    });
  });

  describe("two processes on one database", { skip: name !== "postgres" }, () => {
    let a: Database;
    let b: Database;
    before(async () => {
      a = await open();
      b = await open(a);
    });

    it("A's get and list total see B's writes", async () => {
      await a.objects.insert(storedObject("shared-1"));
      assert.equal(await version(a, "shared-1"), 1);
      assert.equal(await total(a), 1);

      await b.objects.replaceSysmeta({ ...storedObject("shared-1").sysmeta, serialVersion: 2 });
      await b.objects.insert(storedObject("shared-2", {}, 1));
      await pollUntil(
        () => version(a, "shared-1"),
        (v) => v === 2,
      );
      await pollUntil(
        () => total(a),
        (n) => n === 2,
      );
      assert.deepEqual(
        (await a.objects.list({}, 0, 10)).items.map((item) => item.identifier),
        ["shared-1", "shared-2"],
      );

      await b.transaction(async (tx) => {
        await tx.objects.remove("shared-2");
        await tx.objects.replaceSysmeta({ ...storedObject("shared-1").sysmeta, serialVersion: 3 });
      });
      await pollUntil(
        () => version(a, "shared-1"),
        (v) => v === 3,
      );
      await pollUntil(
        () => total(a),
        (n) => n === 1,
      );
      assert.equal(await a.objects.get("shared-2"), undefined);
    });

    it("A's event lists see entries B adds, queued or harvested", async () => {
      const entry = (second: number) => ({
        identifier: "shared-1",
        event: "read",
        ipAddress: "127.0.0.1",
        userAgent: "test",
        subject: "CN=s",
        dateLogged: new Date(Date.UTC(2026, 0, 1, 0, 0, second)),
        nodeIdentifier: "urn:node:TEST",
      });
      const logged = async () => (await a.events.list({}, 0, 1)).total;
      const readable = async () => (await a.events.list({ readableBy: ["public"] }, 0, 1)).total;
      const start = await logged();
      b.events.append(entry(1));
      await b.events.flush();
      await pollUntil(logged, (n) => n === start + 1);
      await b.events.addHarvested([{ ...entry(2), sourceNode: "urn:node:MN9", sourceEntryId: "9" }]);
      await pollUntil(logged, (n) => n === start + 2);
      // Lists filtered by readers follow B's access changes too.
      assert.equal(await readable(), start + 2);
      await b.objects.replaceSysmeta({
        ...storedObject("shared-1").sysmeta,
        serialVersion: 4,
        accessPolicy: [],
      });
      await pollUntil(readable, (n) => n === 0);
    });

    it("A's remembered list positions stay right when B writes before, inside and after them", async () => {
      const entry = (i: number) => ({
        identifier: `pos-${i % 30}`,
        event: "read",
        ipAddress: "127.0.0.1",
        userAgent: "test",
        subject: "CN=s",
        dateLogged: new Date(Date.UTC(2026, 1, 1) + i * 1000),
        nodeIdentifier: "urn:node:TEST",
      });
      for (let i = 0; i < 3200; i++) a.events.append(entry(i));
      await a.events.flush();
      await bulkLoadObjects(
        a,
        Array.from({ length: 2600 }, (_, i) => storedObject(`pos-${i}`, {}, 1_000_000 + i)),
      );
      await a.warmLists(new AbortController().signal, 0);
      const starts = [0, 999, 1000, 1001, 1500, 2000, 2599, 3000, 3199];
      /** A's pages of the unfiltered lists (from its remembered keys) against a new handle's cold lists. */
      const samePages = async () => {
        const cold = await open(a);
        try {
          for (const start of starts) {
            const log = await a.events.list({}, start, 4);
            const truth = await cold.events.list({}, start, 4);
            assert.equal(log.total, truth.total);
            assert.deepEqual(log.items, truth.items, `log at ${start}`);
            const list = await a.objects.list({}, start, 4);
            const objects = await cold.objects.list({}, start, 4);
            assert.equal(list.total, objects.total);
            assert.deepEqual(list.items, objects.items, `objects at ${start}`);
          }
        } finally {
          await cold.close();
        }
      };
      await samePages();

      // B appends after every remembered key, then writes among them: an entry dated early, an object moved.
      for (let i = 3200; i < 3300; i++) b.events.append(entry(i));
      await b.events.flush();
      await b.objects.insert(storedObject("pos-late", {}, 9_000_000));
      await b.events.addHarvested([{ ...entry(1500), sourceNode: "urn:node:MN9", sourceEntryId: "pos-1" }]);
      await b.objects.remove("pos-1200");
      await b.objects.insert(storedObject("pos-last", {}, 9_000_001));
      // Notices arrive in commit order: once A's remembered total counts the last object, it heard them all.
      const objects = await total(b);
      await pollUntil(
        () => total(a),
        (n) => n === objects,
      );
      await samePages();
    });

    it("a write naming too many PIDs for one payload, and a bulk load, make A forget everything", async () => {
      const long = Array.from({ length: 100 }, (_, i) => `long-${"x".repeat(100)}-${i}`);
      await a.transaction(async (tx) => {
        for (const pid of long) await tx.objects.insert(storedObject(pid, {}, 10));
      });
      for (const pid of long) assert.equal(await version(a, pid), 1);
      const before = await total(a);
      await b.transaction(async (tx) => {
        for (const pid of long)
          await tx.objects.replaceSysmeta({ ...storedObject(pid, {}, 10).sysmeta, serialVersion: 2 });
      });
      await pollUntil(
        () => version(a, long[99] as string),
        (v) => v === 2,
      );
      for (const pid of long) assert.equal(await version(a, pid), 2);

      await bulkLoadObjects(b, [storedObject("bulk-1", {}, 20), storedObject("bulk-2", {}, 21)]);
      await pollUntil(
        () => total(a),
        (n) => n === before + 2,
      );
    });

    it("while A's listening connection is down A keeps nothing, and caches again once it is back", async () => {
      const { rows } = await sql<{ name: string }>`select current_database() as name`.execute(a.kysely);
      const database = rows[0]?.name as string;
      await a.objects.insert(storedObject("drop-1", {}, 30));
      assert.equal(await version(a, "drop-1"), 1);
      const listed = await total(a);
      const listeners = (client: pg.Client) =>
        client
          .query(
            "select count(*)::int as n from pg_stat_activity where datname = $1 and application_name = $2 and query ilike 'listen%'",
            [database, APPLICATION_NAME],
          )
          .then((r) => (r.rows[0] as { n: number }).n);
      try {
        // Refuse new connections (the pools keep theirs), then end both handles' listening connections.
        await withAdmin(async (client) => {
          await client.query(`alter database ${database} allow_connections false`);
          await client.query(
            "select pg_terminate_backend(pid) from pg_stat_activity where datname = $1 and application_name = $2",
            [database, APPLICATION_NAME],
          );
        });
        await b.objects.replaceSysmeta({ ...storedObject("drop-1", {}, 30).sysmeta, serialVersion: 2 });
        // The announcement went to no one: A sees the change only by no longer trusting what it kept.
        await pollUntil(
          () => version(a, "drop-1"),
          (v) => v === 2,
        );
        await withAdmin(async (client) => assert.equal(await listeners(client), 0));
        // Still down: every read goes to the database.
        await b.objects.replaceSysmeta({ ...storedObject("drop-1", {}, 30).sysmeta, serialVersion: 3 });
        assert.equal(await version(a, "drop-1"), 3);
        await silentlyRename(b, "drop-1", "unannounced.csv");
        assert.equal((await a.objects.get("drop-1"))?.sysmeta.fileName, "unannounced.csv");
        await b.objects.insert(storedObject("drop-2", {}, 31));
        assert.equal(await total(a), listed + 1);
      } finally {
        await withAdmin((client) => client.query(`alter database ${database} allow_connections true`));
      }
      await withAdmin((client) =>
        pollUntil(
          () => listeners(client),
          (n) => n === 2,
        ),
      );
      // Back: a read is kept again (a change no write reported goes unseen once A trusts its cache)...
      let name = 0;
      await pollUntil(
        async () => {
          const kept = (await a.objects.get("drop-1"))?.sysmeta.fileName;
          await silentlyRename(b, "drop-1", `silent-${++name}.csv`);
          return (await a.objects.get("drop-1"))?.sysmeta.fileName === kept;
        },
        (cached) => cached,
      );
      // ... and announced writes are heard again.
      await b.objects.replaceSysmeta({ ...storedObject("drop-1", {}, 30).sysmeta, serialVersion: 4 });
      await pollUntil(
        () => version(a, "drop-1"),
        (v) => v === 4,
      );
    });
  });
});

/**
 * A TCP relay to PostgreSQL that can go silent on the change feed's connections without closing them, as a
 * firewall that forgets an idle connection does: neither side hears anything again.
 */
async function silencingRelay(target: URL) {
  const feeds: { silent: boolean }[] = [];
  const server = net.createServer((client) => {
    const upstream = net.connect(Number(target.port || 5432), target.hostname);
    const pair = { silent: false };
    let first = true;
    client.on("data", (chunk) => {
      // The startup message names the application.
      if (first && chunk.includes(APPLICATION_NAME)) feeds.push(pair);
      first = false;
      if (!pair.silent) upstream.write(chunk);
    });
    upstream.on("data", (chunk) => {
      if (!pair.silent) client.write(chunk);
    });
    client.on("close", () => upstream.destroy());
    upstream.on("close", () => client.destroy());
    client.on("error", () => undefined);
    upstream.on("error", () => undefined);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const url = new URL(target);
  url.host = `127.0.0.1:${(server.address() as net.AddressInfo).port}`;
  return {
    url: url.toString(),
    silenceFeeds: () => {
      for (const pair of feeds) pair.silent = true;
    },
    close: () => {
      server.close();
    },
  };
}

describe("a listening connection that breaks without a word", {
  skip: !testDialects().includes("postgres"),
}, () => {
  it("is found out by the heartbeat: A stops trusting its cache and listens anew", {
    timeout: 60_000,
  }, async () => {
    const pg = await createTestPostgresDatabase();
    const relay = await silencingRelay(new URL(pg.url));
    const a = await openNodeDatabase({ url: relay.url });
    const b = await openNodeDatabase({ url: pg.url });
    try {
      await a.objects.insert(storedObject("silent-1"));
      assert.equal(await version(a, "silent-1"), 1);
      relay.silenceFeeds();
      await b.objects.replaceSysmeta({ ...storedObject("silent-1").sysmeta, serialVersion: 2 });
      // The notice is lost in the relay; the heartbeat (every 5 s, answered within 5 s) finds the break.
      await pollUntil(
        () => version(a, "silent-1"),
        (v) => v === 2,
        20_000,
      );
      // Listening again on a new connection: notices arrive.
      await pollUntil(
        async () => {
          const kept = (await a.objects.get("silent-1"))?.sysmeta.fileName;
          await silentlyRename(b, "silent-1", `silent-${Date.now()}.csv`);
          return (await a.objects.get("silent-1"))?.sysmeta.fileName === kept;
        },
        (cached) => cached,
      );
      await b.objects.replaceSysmeta({ ...storedObject("silent-1").sysmeta, serialVersion: 3 });
      await pollUntil(
        () => version(a, "silent-1"),
        (v) => v === 3,
      );
    } finally {
      await a.close();
      await b.close();
      relay.close();
      await pg.drop();
    }
  });
});
