/**
 * The full rebuild (reindexObjects, as `d1node index` runs it) on both dialects: the index it builds from the
 * stored objects answers the same queries as one built document by document at write time, and a rebuild
 * stopped halfway resumes after the last page it wrote and finishes with the same index (its deferred secondary
 * indexes built again).
 */
import assert from "node:assert/strict";
import { before, describe, it } from "node:test";
import { sql } from "kysely";
import { emlDocument } from "../../../bench/lib/corpus/eml-corpus.ts";
import { loadFormatRegistry } from "../../../src/context/formats.ts";
import type { Database, StoredObject } from "../../../src/db/types.ts";
import { searchUncached } from "../../../src/search/answers/search.ts";
import { indexStoredObject } from "../../../src/search/indexing/indexer.ts";
import { reindexObjects } from "../../../src/search/indexing/reindex.ts";
import { SolrParams } from "../../../src/search/query/params.ts";
import { parseSearchRequest } from "../../../src/search/query/parse-request.ts";
import { searchRepository } from "../../../src/search/store/index.ts";
import type { RebuildEnd } from "../../../src/search/store/rebuild-state.ts";
import type { ObjectStore } from "../../../src/store/types.ts";
import { resourceMapXml } from "../../helpers/data/resource-map.ts";
import { storedObject } from "../../helpers/data/sysmeta.ts";
import { forEachDialect } from "../../helpers/db/databases.ts";
import { searchIndexOf } from "../../helpers/db/search-index.ts";

const formats = loadFormatRegistry();
const EML = "eml://ecoinformatics.org/eml-2.1.1";
const MAP = "http://www.openarchives.org/ore/terms";

/** 23 EML documents, 6 CSV objects and a resource map tying one EML document to two CSVs; bytes by content key. */
function corpus(): { objects: StoredObject[]; bytes: Map<string, Buffer> } {
  const bytes = new Map<string, Buffer>();
  const objects: StoredObject[] = [];
  const add = (pid: string, formatId: string, content: Buffer, i: number) => {
    const key = `key-${pid}`;
    bytes.set(key, content);
    const object = storedObject(pid, { formatId, size: content.length }, i * 1000);
    objects.push({ ...object, contentKey: key, digests: { ...object.digests, size: content.length } });
  };
  for (let i = 0; i < 23; i++) add(`rb-eml-${i}`, EML, Buffer.from(emlDocument(i)), i);
  for (let i = 0; i < 6; i++) add(`rb-csv-${i}`, "text/csv", Buffer.from("a,b\n1,2\n"), 30 + i);
  add("rb-map", MAP, Buffer.from(resourceMapXml("rb-map", "rb-eml-3", ["rb-csv-1", "rb-csv-4"])), 40);
  return { objects, bytes };
}

function storeOf(bytes: Map<string, Buffer>): ObjectStore {
  return {
    async *read(key: string) {
      const content = bytes.get(key);
      if (!content) throw new Error(`no bytes under ${key}`);
      yield content;
    },
  } as unknown as ObjectStore;
}

const QUERIES: Record<string, string | string[]>[] = [
  { q: "*:*", rows: "100", sort: "id asc", fl: "*" },
  { q: "keywords:ice OR title:forest", rows: "100", sort: "id asc", fl: "id,title,keywords" },
  {
    q: "abstract:soil*",
    rows: "100",
    sort: "dateUploaded desc",
    facet: "true",
    "facet.field": ["keywords", "formatType"],
  },
  { q: "resourceMap:rb-map", rows: "100", sort: "id asc", fl: "id,documents,isDocumentedBy,resourceMap" },
  { q: "formatType:DATA", rows: "100", sort: "id asc", fl: "id,isDocumentedBy" },
];

async function answers(db: Database) {
  const out = [];
  for (const params of QUERIES) {
    const result = await searchUncached(
      searchIndexOf(db),
      parseSearchRequest(SolrParams.from(params)),
      "all",
    );
    out.push({ numFound: result.numFound, docs: result.docs, facets: result.facets });
  }
  return out;
}

async function indexNames(db: Database): Promise<string[]> {
  const rows =
    db.dialect === "postgres"
      ? await sql<{ name: string }>`select indexname as name from pg_indexes
          where tablename in ('search_docs', 'search_values') order by 1`.execute(db.kysely)
      : await sql<{ name: string }>`select name from sqlite_master where type = 'index'
          and tbl_name in ('search_docs', 'search_values') order by 1`.execute(db.kysely);
  return rows.rows.map((row) => row.name);
}

forEachDialect((dialect, open) => {
  describe(`full rebuild (${dialect})`, () => {
    const { objects, bytes } = corpus();
    const store = storeOf(bytes);
    let expected: Awaited<ReturnType<typeof answers>>;
    let indexes: string[];

    before(async () => {
      // The reference: every object indexed as its write indexes it, one document at a time.
      const db = await open();
      await db.objects.insertMany(objects);
      const ctx = { db, store, formats };
      for (const object of objects) await indexStoredObject(ctx, object);
      expected = await answers(db);
      indexes = await indexNames(db);
      assert.equal(expected[0]?.numFound, objects.length);
    });

    it("answers the same queries as the index built document by document", async () => {
      const db = await open();
      await db.objects.insertMany(objects);
      const ends: RebuildEnd[] = [];
      const progress = await reindexObjects(
        { db, store, formats },
        { batchSize: 4, onEnd: (end) => ends.push(end) },
      );
      assert.deepEqual(progress, { seen: objects.length, written: objects.length, failed: 0, removed: 0 });
      assert.deepEqual(await answers(db), expected);
      assert.deepEqual(await indexNames(db), indexes);
      // The end told as it went: its start, then each index built, by name, with its seconds.
      const total = ends[0]?.total ?? 0;
      assert.ok(total > 0);
      assert.deepEqual(
        ends.map((end) => end.done),
        Array.from({ length: total + 1 }, (_, i) => i),
      );
      for (const { last } of ends.slice(1)) {
        assert.ok(last && indexes.includes(last.index), `${last?.index} is one of the indexes`);
        assert.ok(last.seconds >= 0);
      }
      assert.equal(await searchRepository(db).rebuildState(), undefined);
    });

    it("a rebuild stopped halfway resumes after its last page and finishes with the same index", async () => {
      const db = await open();
      await db.objects.insertMany(objects);
      const ctx = { db, store, formats };
      const stop = new AbortController();
      const first = await reindexObjects(ctx, {
        batchSize: 5,
        signal: stop.signal,
        onProgress: (progress) => {
          if (progress.seen >= 10) stop.abort();
        },
      });
      assert.ok(first.seen >= 10 && first.seen < objects.length, `stopped after ${first.seen}`);
      const state = await searchRepository(db).rebuildState();
      assert.ok(state?.after, "the rebuild records how far it got");
      assert.ok(state.deferredIndexes > 0, "an empty index's secondary indexes wait for the end");
      assert.ok((await indexNames(db)).length < indexes.length);
      // Searches meanwhile see the documents written so far.
      const [partial] = await answers(db);
      assert.equal(partial?.numFound, first.written);

      const second = await reindexObjects(ctx, { batchSize: 5 });
      assert.equal(first.seen + second.seen, objects.length, "no object is read twice");
      assert.equal(second.failed, 0);
      assert.deepEqual(await answers(db), expected);
      assert.deepEqual(await indexNames(db), indexes);
      assert.equal(await searchRepository(db).rebuildState(), undefined);
    });

    if (dialect === "postgres")
      it("the terms' pending list: left to the rebuild while it runs, searched meanwhile, moved and its limit reset at the end", async () => {
        const db = await open();
        await db.objects.insertMany(objects);
        const ctx = { db, store, formats };
        const termsIndex = async () =>
          (
            await sql<{ options: string[] | null }>`select reloptions as options from pg_class
              where relname = 'search_docs_terms'`.execute(db.kysely)
          ).rows[0]?.options ?? null;
        const pendingPagesMoved = async () =>
          Number(
            (
              await sql<{ pages: string }>`select gin_clean_pending_list('search_docs_terms'::regclass)
                as pages`.execute(db.kysely)
            ).rows[0]?.pages,
          );
        assert.equal(await termsIndex(), null);
        const stop = new AbortController();
        await reindexObjects(ctx, {
          batchSize: 5,
          signal: stop.signal,
          onProgress: (progress) => {
            if (progress.seen >= 15) stop.abort();
          },
        });
        // No insert moves the list while the rebuild runs (the index's own limit raised to PostgreSQL's largest).
        assert.deepEqual(await termsIndex(), ["gin_pending_list_limit=2097151"]);
        // A text condition reads the terms still in the list: the documents written so far that match it.
        const after = (await searchRepository(db).rebuildState())?.after ?? "";
        const [, words] = await answers(db);
        const written = (expected[1]?.docs ?? []).filter((doc) => String(doc.id) <= after);
        assert.ok(written.length > 0);
        assert.deepEqual(words?.docs, written);
        // Moved by the rebuild's own move (every MOVE_EVERY documents; called here at once).
        await searchRepository(db).movePendingTerms();
        assert.equal(await pendingPagesMoved(), 0, "the move left nothing in the list");

        await reindexObjects(ctx, { batchSize: 5 });
        assert.equal(await termsIndex(), null, "the default limit is back");
        assert.equal(await pendingPagesMoved(), 0, "the end moved the rest of the list");
        assert.deepEqual(await answers(db), expected);
      });

    if (dialect === "sqlite")
      it("a full disk stops the rebuild at once with the database's reason, and the rebuild resumes with room", async () => {
        const db = await open();
        await db.objects.insertMany(objects);
        const logged: string[] = [];
        const log = {
          error: (_: object, message: string) => logged.push(message),
          warn: (_: object, message: string) => logged.push(message),
          info: () => undefined,
        };
        const ctx = { db, store, formats, log };
        // The file may not grow (SQLite answers SQLITE_FULL, "database or disk is full", as on a full disk); the
        // node's own connection writes (no threads), so the limit holds for every write.
        const pages = await sql<{ page_count: number }>`pragma page_count`.execute(db.kysely);
        await sql.raw(`pragma max_page_count = ${pages.rows[0]?.page_count}`).execute(db.kysely);
        const full = await reindexObjects(ctx, { batchSize: 5, threads: 0 }).then(
          () => assert.fail("the rebuild went on with no room"),
          (error: Error & { code?: string }) => error,
        );
        assert.equal(full.code, "SQLITE_FULL");
        assert.match(
          full.message,
          /^the database's storage is full \(database or disk is full\): free space/,
        );
        assert.deepEqual(logged, [], "no object is reported as failed: the run stopped at the first");
        assert.ok(await searchRepository(db).rebuildState(), "the rebuild's place is kept");
        await sql`pragma max_page_count = 1073741823`.execute(db.kysely);
        const resumed = await reindexObjects(ctx, { batchSize: 5, threads: 0 });
        assert.equal(resumed.failed, 0);
        assert.deepEqual(await answers(db), expected);
        assert.deepEqual(await indexNames(db), indexes);
      });

    if (dialect === "sqlite")
      it("the end sorts in temporary files on the node's own connection, then gives back its settings", async () => {
        const db = await open();
        const settings = async () =>
          (
            await sql<Record<string, number>>`select temp_store, cache_size, threads
              from pragma_temp_store, pragma_cache_size, pragma_threads`.execute(db.kysely)
          ).rows[0];
        const before = await settings();
        assert.equal(before?.temp_store, 2, "the node keeps statement journals in memory");
        await searchRepository(db).beginRebuild(true);
        // A statement of the end's own list records the settings it runs under.
        await sql`update search_rebuild set deferred_indexes = json_insert(deferred_indexes, '$[#]',
          'create table end_settings as select temp_store, cache_size, threads
            from pragma_temp_store, pragma_cache_size, pragma_threads')`.execute(db.kysely);
        await searchRepository(db).finishRebuild();
        const during = await sql<Record<string, number>>`select * from end_settings`.execute(db.kysely);
        assert.deepEqual(during.rows[0], { temp_store: 1, cache_size: -262_144, threads: 1 });
        assert.deepEqual(await settings(), before);
        assert.equal(await searchRepository(db).rebuildState(), undefined);
      });
  });
});
