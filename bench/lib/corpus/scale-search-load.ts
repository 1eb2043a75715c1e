/**
 * A search index of millions of documents, loaded into PostgreSQL with COPY FROM STDIN: the rows the index
 * store would write (src/search/schema/index-rows.ts) for documents drawn from the corpus's field distributions
 * (eml-fields.ts), `search_docs` and `search_values` streamed side by side on two connections. Each table is
 * emptied in the COPY's own transaction so the rows go in frozen (COPY FREEZE: no vacuum pass after, the
 * visibility map already set for index-only scans); the rows' text is made by worker threads; the secondary
 * indexes and keys are dropped while the rows go in and built after (maintenance_work_mem raised, the two
 * tables' indexes on their two connections at once), then `analyze`.
 */
import pg from "pg";
import { from as copyFrom } from "pg-copy-streams";
import { backendPid, serverCpuDuring } from "../measure/server-cpu.ts";
import { chunkSource } from "./scale-search-pool.ts";
import { DOCS_COPY_COLUMNS, VALUES_COPY_COLUMNS } from "./scale-search-rows.ts";

const DOCS_PER_CHUNK = 2000;
const TABLES = ["search_docs", "search_values"] as const;
/** For the index builds of the load (the server's default is 64 MB; the GIN index of terms gains most). */
const BUILD_MEMORY = "512MB";

export interface LoadTimes {
  rowsSeconds: number;
  indexSeconds: number;
  /** CPU seconds of the two PostgreSQL backends (null when the server is not on this machine). */
  serverCpu: { rows: number | null; indexes: number | null };
}

interface Definition {
  table: string;
  name: string;
  /** create index ... or alter table ... add constraint ... */
  create: string;
}

export async function copySearchIndex(
  url: string,
  count: number,
  /** Worker threads making the rows' text (0: this thread). */
  threads: number,
  onProgress: (docs: number) => void,
): Promise<LoadTimes> {
  const clients = [
    new pg.Client({ connectionString: url }),
    new pg.Client({ connectionString: url }),
  ] as const;
  for (const client of clients) await client.connect();
  const [docsClient, valuesClient] = clients;
  try {
    const pids = await Promise.all(clients.map(backendPid));
    const definitions = await dropIndexes(docsClient);
    const started = performance.now();
    const rows = await serverCpuDuring(pids, async () => {
      for (const [i, client] of clients.entries()) {
        await client.query("begin");
        await client.query(`truncate ${TABLES[i]}`);
      }
      const docs = docsClient.query(
        copyFrom(`copy search_docs (${DOCS_COPY_COLUMNS.join(", ")}) from stdin with (freeze)`),
      );
      const values = valuesClient.query(
        copyFrom(`copy search_values (${VALUES_COPY_COLUMNS.join(", ")}) from stdin with (freeze)`),
      );
      const done = [finished(docs), finished(values)];
      const source = chunkSource(count, DOCS_PER_CHUNK, threads);
      try {
        let written = 0;
        for (let text = await source.next(); text; text = await source.next()) {
          await Promise.all([write(docs, text.docs), write(values, text.values)]);
          written = Math.min(count, written + DOCS_PER_CHUNK);
          onProgress(written);
        }
      } finally {
        await source.close();
      }
      docs.end();
      values.end();
      await Promise.all(done);
      for (const client of clients) await client.query("commit");
    });
    const rowsSeconds = (performance.now() - started) / 1000;
    const indexed = performance.now();
    const indexes = await serverCpuDuring(pids, () =>
      Promise.all(
        clients.map(async (client, i) => {
          await client.query(`set maintenance_work_mem = '${BUILD_MEMORY}'`);
          for (const d of definitions.filter((d) => d.table === TABLES[i])) await client.query(d.create);
          await client.query(`analyze ${TABLES[i]}`);
        }),
      ),
    );
    return {
      rowsSeconds,
      indexSeconds: (performance.now() - indexed) / 1000,
      serverCpu: { rows: rows.cpu, indexes: indexes.cpu },
    };
  } finally {
    for (const client of clients) await client.end();
  }
}

/** The two tables' secondary indexes and keys, dropped; their definitions returned to build them again. */
async function dropIndexes(client: pg.Client): Promise<Definition[]> {
  const keys = await client.query<Definition>(
    `select conrelid::regclass::text as table, conname as name,
        format('alter table %I add constraint %I %s', conrelid::regclass, conname, pg_get_constraintdef(oid)) as create
       from pg_constraint where conrelid in ('search_docs'::regclass, 'search_values'::regclass) and contype = 'p'`,
  );
  const indexes = await client.query<Definition>(
    `select tablename as table, indexname as name, indexdef as create from pg_indexes
       where schemaname = current_schema() and tablename in ('search_docs', 'search_values')
         and indexname not in (select conname from pg_constraint)`,
  );
  for (const index of indexes.rows) await client.query(`drop index "${index.name}"`);
  for (const key of keys.rows) await client.query(`alter table ${key.table} drop constraint "${key.name}"`);
  // Keys first: the pid key of search_docs is what the other indexes' builds are checked against least.
  return [...keys.rows, ...indexes.rows];
}

function write(stream: NodeJS.WritableStream, text: Buffer): Promise<void> {
  return stream.write(text) ? Promise.resolve() : new Promise((resolve) => stream.once("drain", resolve));
}

function finished(stream: NodeJS.WritableStream): Promise<void> {
  return new Promise((resolve, reject) => {
    stream.on("finish", resolve);
    stream.on("error", reject);
  });
}
