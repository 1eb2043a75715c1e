/**
 * SQLite's full rebuild is written by one writing thread, on a connection of its own (the file shared for the
 * while), from the rows its extraction threads make: the node's thread answers a search while the writing thread
 * holds the write lock for a page and its own writes go through between the thread's transactions, the node's
 * connection writes nothing of the rebuild after its start (progress included: another connection's commit
 * would drop the writing connection's page cache), the rebuild leaves the same index as one written on the
 * node's own connection, and the node holds its file alone again once the rebuild ends. On PostgreSQL the threads COPY the new documents' values: the rows are those the node's
 * INSERT writes.
 */
import assert from "node:assert/strict";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, describe, it } from "node:test";
import SQLite from "better-sqlite3";
import { sql } from "kysely";
import { emlDocument } from "../../../bench/lib/corpus/eml-corpus.ts";
import { loadFormatRegistry } from "../../../src/context/formats.ts";
import type { Database, StoredObject } from "../../../src/db/types.ts";
import { openNodeDatabase } from "../../../src/node/open-database.ts";
import { searchUncached } from "../../../src/search/answers/search.ts";
import { indexStoredObject, unindex } from "../../../src/search/indexing/indexer.ts";
import { reindexObjects } from "../../../src/search/indexing/reindex.ts";
import { SolrParams } from "../../../src/search/query/params.ts";
import { parseSearchRequest } from "../../../src/search/query/parse-request.ts";
import type { IndexRows } from "../../../src/search/schema/index-rows.ts";
import { searchRepository } from "../../../src/search/store/index.ts";
import { openPostgresThreadWriter } from "../../../src/search/store/postgres-thread-writer.ts";
import type { RebuildEnd } from "../../../src/search/store/rebuild-state.ts";
import type { ObjectStore } from "../../../src/store/types.ts";
import { storedObject } from "../../helpers/data/sysmeta.ts";
import { createTestPostgresDatabase } from "../../helpers/db/postgres.ts";
import { searchIndexOf } from "../../helpers/db/search-index.ts";
import { testDialects } from "../../helpers/nodes/node.ts";

const formats = loadFormatRegistry();
const EML = "eml://ecoinformatics.org/eml-2.1.1";
const COUNT = 600;

function corpus(): { objects: StoredObject[]; store: ObjectStore } {
  const bytes = Array.from({ length: 50 }, (_, i) => Buffer.from(emlDocument(i)));
  const objects = Array.from({ length: COUNT }, (_, i) => {
    const content = bytes[i % bytes.length] as Buffer;
    const object = storedObject(
      `rt-${String(i).padStart(4, "0")}`,
      { formatId: EML, size: content.length },
      i,
    );
    return {
      ...object,
      contentKey: `${i % bytes.length}`,
      digests: { ...object.digests, size: content.length },
    };
  });
  const store = {
    async *read(key: string) {
      yield bytes[Number(key)] as Buffer;
    },
  } as unknown as ObjectStore;
  return { objects, store };
}

async function answers(db: Database) {
  const params = { q: "keywords:ice OR title:forest", rows: "1000", sort: "id asc", fl: "*", facet: "true" };
  const result = await searchUncached(
    searchIndexOf(db),
    parseSearchRequest(SolrParams.from({ ...params, "facet.field": ["keywords", "formatType"] })),
    "all",
  );
  return { numFound: result.numFound, docs: result.docs, facets: result.facets };
}

/** Whether another connection holds the file's write lock (undefined: the node holds the file alone). */
function writeLocked(file: string): boolean | undefined {
  let probe: SQLite.Database | undefined;
  try {
    probe = new SQLite(file, { timeout: 0 });
    probe.prepare("select count(*) from sqlite_master").get();
  } catch {
    probe?.close();
    return undefined;
  }
  try {
    probe.exec("begin immediate");
    probe.exec("rollback");
    return false;
  } catch (error) {
    assert.match((error as Error).message, /locked|busy/);
    return true;
  } finally {
    probe.close();
  }
}

describe("SQLite rebuild written by its threads", () => {
  const dirs: string[] = [];
  after(async () => {
    for (const dir of dirs) await rm(dir, { recursive: true, force: true });
  });
  const open = async () => {
    const dir = await mkdtemp(path.join(tmpdir(), "d1node-rt-"));
    dirs.push(dir);
    const file = path.join(dir, "index.sqlite");
    return { db: await openNodeDatabase({ sqlitePath: file }), file };
  };
  const { objects, store } = corpus();

  it("answers and writes while a thread writes a page, and leaves the index written on the node's connection", async () => {
    const reference = await open();
    await reference.db.objects.insertMany(objects);
    await reindexObjects({ db: reference.db, store, formats }, { batchSize: 200, threads: 0 });
    const expected = await answers(reference.db);
    await reference.db.close();

    const { db, file } = await open();
    await db.objects.insertMany(objects);
    let answeredWhileLocked = 0;
    let nodeWrites = 0;
    let watching = true;
    const watch = (async () => {
      while (watching) {
        await new Promise((resolve) => setImmediate(resolve));
        if (writeLocked(file) !== true) continue;
        const answer = await answers(db);
        assert.ok(answer.numFound >= 0);
        if (writeLocked(file) === true) answeredWhileLocked++;
        // The node's own write goes through between the threads' transactions.
        await db.kysely.transaction().execute(async (tx) => {
          await sql`create table if not exists node_writes (n integer)`.execute(tx);
          await sql`insert into node_writes values (${++nodeWrites})`.execute(tx);
        });
      }
    })();
    const progress = await reindexObjects({ db, store, formats }, { batchSize: 200 });
    watching = false;
    await watch;
    assert.deepEqual(progress, { seen: COUNT, written: COUNT, failed: 0, removed: 0 });
    assert.ok(answeredWhileLocked > 0, "a search was answered while a rebuild thread held the write lock");
    const written = await sql<{ n: number }>`select count(*) as n from node_writes`.execute(db.kysely);
    assert.equal(written.rows[0]?.n, nodeWrites);
    assert.deepEqual(await answers(db), expected);
    // The node holds its file alone again.
    assert.equal(writeLocked(file), undefined);
    await db.close();
  });

  it("writes the pages, the progress and the dropped indexes on the writing thread's connection alone", async () => {
    const { db } = await open();
    await db.objects.insertMany(objects);
    const nodeChanges = async () =>
      (await sql<{ n: number }>`select total_changes() as n`.execute(db.kysely)).rows[0]?.n ?? 0;
    const before = await nodeChanges();
    let progressNoted = 0;
    const ends: RebuildEnd[] = [];
    const progress = await reindexObjects(
      { db, store, formats },
      {
        batchSize: 100,
        onProgress: () => {
          progressNoted++;
        },
        onEnd: (end) => ends.push(end),
      },
    );
    assert.deepEqual(progress, { seen: COUNT, written: COUNT, failed: 0, removed: 0 });
    assert.ok(progressNoted >= COUNT / 100);
    // The writing thread told how its end went, index by index.
    assert.ok((ends[0]?.total ?? 0) > 0);
    assert.equal(ends.length, (ends[0]?.total ?? 0) + 1);
    assert.ok(ends.some((end) => end.last?.index === "search_values_by_value"));
    // The node's connection changed one row: the rebuild's start (search_rebuild), which the writing thread
    // then updated page by page and removed at its end.
    assert.equal((await nodeChanges()) - before, 1);
    assert.equal(await searchRepository(db).rebuildState(), undefined);
    assert.equal((await answers(db)).numFound > 0, true);
    await db.close();
  });
  it("writes a rebuild's values as it goes, builds search_values' indexes at its end, the node's writes meanwhile kept", async () => {
    const valueRows = async (db: Database, table: string) =>
      (
        await sql<{
          row: string;
        }>`select pid || '|' || field || '|' || value || '|' || coalesce(num, '') as row
          from ${sql.table(table)} order by 1`.execute(db.kysely)
      ).rows.map((r) => r.row);
    const reference = await open();
    await reference.db.objects.insertMany(objects);
    await reindexObjects({ db: reference.db, store, formats }, { batchSize: 200, threads: 0 });
    const expected = await valueRows(reference.db, "search_values");
    await reference.db.close();

    const { db } = await open();
    await db.objects.insertMany(objects);
    const ctx = { db, store, formats };
    const stop = new AbortController();
    await reindexObjects(ctx, {
      batchSize: 100,
      signal: stop.signal,
      onProgress: (progress) => {
        if (progress.seen >= 200) stop.abort();
      },
    });
    assert.ok(((await searchRepository(db).rebuildState())?.deferredIndexes ?? 0) > 0);
    const indexes = async () =>
      (
        await sql<{
          name: string;
        }>`select name from sqlite_master where type = 'index' and tbl_name = 'search_values' order by name`.execute(
          db.kysely,
        )
      ).rows.map((row) => row.name);
    assert.deepEqual(await indexes(), [], "the secondary indexes wait for the end");
    const pidsWritten = async () =>
      new Set((await valueRows(db, "search_values")).map((row) => row.split("|")[0]));
    const written = await pidsWritten();
    assert.ok(written.size >= 100, "the pages' values are in search_values as they are written");
    // The node's own writes meanwhile: a written document rewritten, another removed.
    const [rewritten, removed] = objects as [StoredObject, StoredObject];
    assert.ok(written.has(rewritten.sysmeta.identifier) && written.has(removed.sysmeta.identifier));
    await indexStoredObject(ctx, rewritten);
    await unindex(ctx, removed.sysmeta.identifier);
    assert.ok((await pidsWritten()).has(rewritten.sysmeta.identifier));
    assert.ok(!(await pidsWritten()).has(removed.sysmeta.identifier));
    await indexStoredObject(ctx, removed);

    await reindexObjects(ctx, { batchSize: 100 });
    assert.deepEqual(await valueRows(db, "search_values"), expected);
    assert.deepEqual(await indexes(), ["search_values_by_value", "search_values_num"]);
    assert.equal(await searchRepository(db).rebuildState(), undefined);
    await db.close();
  });
});

describe("PostgreSQL rebuild written by its threads", { skip: !testDialects().includes("postgres") }, () => {
  it("COPYs a page's values as the node's INSERT writes them, escapes included", async () => {
    const database = await createTestPostgresDatabase();
    const db = await openNodeDatabase({ url: database.url });
    const rows = (pid: string): IndexRows => ({
      row: {
        pid,
        doc: "{}",
        science: "[]",
        format_type: "METADATA",
        obsoleted: 0,
        archived: 0,
        is_public: 1,
        date_uploaded: 1,
        format_id: EML,
      },
      values: [
        { pid, field: "keywords", value: "tab\there, back\\slash, line\nbreak, return\rcarriage", num: null },
        { pid, field: "keywords", value: "\\N", num: null },
        { pid, field: "size", value: "12.5", num: 12.5 },
      ],
      terms: ["title__ice"],
    });
    const values = async (pid: string) =>
      (
        await sql<{ field: string; value: string; num: number | null }>`select field, value, num
          from search_values where pid = ${pid} order by field, value`.execute(db.kysely)
      ).rows;
    try {
      await searchRepository(db).writeRows([rows("by-node")]);
      const writer = openPostgresThreadWriter(database.url);
      await writer.write([rows("by-thread")]);
      await writer.close();
      assert.equal((await values("by-thread")).length, 3);
      assert.deepEqual(await values("by-thread"), await values("by-node"));
    } finally {
      await db.close();
      await database.drop();
    }
  });
});
