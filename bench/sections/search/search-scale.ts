/**
 * search-scale (only when named; PostgreSQL, `--postgres URL`): the MetacatUI search page on an index of
 * BENCH_SEARCH_SCALE_DOCS documents (default 2,500,000), loaded with COPY (bench/lib/corpus/scale-search-load.ts)
 * from the corpus's field distributions. Figures: the load; the first query of a process (the engine's memory read),
 * the memory it holds (estimated) and the process RSS; the page with a new filter each time (distinct, through
 * `runQuery`: the answer written and encoded as UTF-8, as the reply sends it),
 * unfiltered with the answer cache bypassed, and right after a write, p50 / p99 beside a plain indexed SELECT of
 * the page; then a burst of 10,000 rewrites and the slowest of the queries after it. Targets: p50 <= 50 ms,
 * p99 <= 250 ms; memory under the 1 GiB budget; no multi-second stall after the burst. Each read of the memory
 * (from the database, from a snapshot) is watched: the process's RSS peak, the event loop's longest delay and a
 * one-row query's latency meanwhile (bench/lib/measure/read-watch.ts). BENCH_SEARCH_SCALE_READ_ONLY=1: the reads
 * and the first query alone. BENCH_SEARCH_SCALE_PAGES_ONLY=1: the first read, the timed pages and the burst (no second read,
 * snapshot restarts or SQL page).
 */
import { loadavg } from "node:os";
import { sql } from "kysely";
import { loadFormatRegistry } from "../../../src/context/formats.ts";
import type { Database } from "../../../src/db/types.ts";
import { openNodeDatabase } from "../../../src/node/open-database.ts";
import { searchUncached } from "../../../src/search/answers/search.ts";
import { runQuery } from "../../../src/search/answers/service.ts";
import { parseSearchRequest } from "../../../src/search/query/parse-request.ts";
import { openSearchIndex } from "../../../src/search/search-index.ts";
import { writeDocument, writeDocuments } from "../../../src/search/store/index-store.ts";
import { searchPageParams, searchPageRequest } from "../../../src/search/warm.ts";
import { scaleEntryOf } from "../../lib/corpus/scale-search-entry.ts";
import { copySearchIndex } from "../../lib/corpus/scale-search-load.ts";
import { watchRead } from "../../lib/measure/read-watch.ts";
import { backend, keptBackend } from "../../lib/node.ts";
import { record } from "../../lib/report.ts";
import type { SectionOptions } from "../types.ts";
import { keywordClause, percentiles, recordPage, timeOnce } from "./search.ts";
import {
  pingOf,
  recordAloneRead,
  recordSnapshotRestart,
  type SnapshotBench,
  saveSnapshot,
  snapshotBench,
} from "./search-scale-snapshot.ts";

const DOCS = Number(process.env.BENCH_SEARCH_SCALE_DOCS ?? 2_500_000);
/** Set (to anything): only the load and the memory's reads (database, snapshot), not the queries and bursts. */
const READ_ONLY = Boolean(process.env.BENCH_SEARCH_SCALE_READ_ONLY);
/** Set (to anything): the first read, the pages and the burst alone (to compare query code on a kept database). */
const PAGES_ONLY = Boolean(process.env.BENCH_SEARCH_SCALE_PAGES_ONLY);
/** Set (to anything): the loaded database is kept (named by its size) and reused by the next run. */
const KEEP = Boolean(process.env.BENCH_SEARCH_SCALE_KEEP);
/** Worker threads making the load's rows (BENCH_SEARCH_SCALE_THREADS, default 2). */
const THREADS = Number(process.env.BENCH_SEARCH_SCALE_THREADS ?? 2);
const LOADED_MARK = "bench_search_scale_loaded";
const BURST = 10_000;
const QUERIES = 50;
const _formats = loadFormatRegistry();
const MB = 1024 * 1024;

/** The load averages (1, 5, 15 minutes), for the notes: the machine may be shared. */
const loadAverages = () =>
  `load ${loadavg()
    .map((l) => l.toFixed(1))
    .join(" / ")}`;

const cpuSeconds = (cpu: NodeJS.CpuUsage) => (cpu.user + cpu.system) / 1e6;
const seconds = (s: number | null) => (s === null ? "unknown" : `${s.toFixed(0)} s`);

/** Timed like percentiles(), with this process's CPU per query (ms). */
async function withCpu(run: () => Promise<{ p50: number; p99: number }>) {
  const before = process.cpuUsage();
  const t = await run();
  const cpu = process.cpuUsage(before);
  return { ...t, cpuMs: (cpu.user + cpu.system) / 1000 / (QUERIES + 5) };
}

/**
 * The search page answered by SQL alone (an engine over its memory budget, as while the memory is read), unfiltered
 * and with a keyword filter: three runs each, the median, Node's CPU per query.
 */
async function recordSqlPage(
  overBudget: ReturnType<typeof openSearchIndex>,
  plainP50: number,
): Promise<void> {
  const caller = { subjects: new Set(["public"]) };
  for (const fq of ["", keywordClause(0)]) {
    const params = searchPageParams();
    if (fq) params.add("fq", fq);
    const request = parseSearchRequest(params);
    const runs: number[] = [];
    let found = 0;
    const cpu = process.cpuUsage();
    for (let i = 0; i < 3; i++) {
      runs.push(
        await timeOnce(async () => {
          found = (await searchUncached(overBudget, request, caller)).numFound;
        }),
      );
    }
    const cpuMs = cpuSeconds(process.cpuUsage(cpu)) * 1000;
    const median = [...runs].sort((a, b) => a - b)[1] as number;
    record({
      section: "search-scale",
      name: `search page by SQL (memory off / over budget)${fq ? ", keyword filter" : ""}, ${DOCS} docs (postgres)`,
      value: median,
      unit: "ms",
      runs,
      baseline: { name: "plain indexed SELECT of the page, p50", value: plainP50, unit: "ms" },
      target: "a few seconds",
      notes: `${loadAverages()}; ${found} documents matched; mode ${overBudget.status().mode}; Node CPU ${(cpuMs / 3).toFixed(0)} ms a query`,
    });
  }
}

async function load(url: string): Promise<void> {
  const cpuBefore = process.cpuUsage();
  const { rowsSeconds, indexSeconds, serverCpu } = await copySearchIndex(url, DOCS, THREADS, (n) => {
    if (n % 100_000 === 0) process.stderr.write(`\r  copied ${n} / ${DOCS}`);
  });
  process.stderr.write("\n");
  const cpu = process.cpuUsage(cpuBefore);
  record({
    section: "search-scale",
    name: `COPY of a ${DOCS}-document search index (postgres)`,
    value: DOCS / (rowsSeconds + indexSeconds),
    unit: "docs/s",
    notes: `${loadAverages()}; rows ${rowsSeconds.toFixed(0)} s (Node CPU ${cpuSeconds(cpu).toFixed(0)} s with ${THREADS} threads, PostgreSQL CPU ${seconds(serverCpu.rows)}), indexes and analyze ${indexSeconds.toFixed(0)} s (PostgreSQL CPU ${seconds(serverCpu.indexes)})`,
  });
}

/** The memory read again in a fresh engine, alone, saved to `snapshot`, and a restart from it timed. */
async function readAloneAndRestart(database: Database, snapshot: SnapshotBench) {
  const aloneIndex = openSearchIndex(database, { snapshot: snapshot.options });
  const aloneCpu = process.cpuUsage();
  const alone = await timeOnce(() => aloneIndex.prepare());
  const databaseRead = { seconds: alone / 1000, cpu: cpuSeconds(process.cpuUsage(aloneCpu)) };
  const aloneNote = `alone: ${(alone / 1000).toFixed(1)} s, ${databaseRead.cpu.toFixed(1)} s of this process's CPU`;
  const saved = await saveSnapshot(aloneIndex, snapshot);
  aloneIndex.close();
  const savedNote = `snapshot written in ${saved.seconds.toFixed(1)} s (CPU ${saved.cpu.toFixed(1)} s), ${(saved.bytes / MB).toFixed(0)} MB`;
  await recordSnapshotRestart(database, snapshot, DOCS, "", databaseRead, savedNote);
  return { databaseRead, aloneNote, savedNote };
}

export async function searchScale(options: SectionOptions): Promise<void> {
  if (!options.postgres) throw new Error("search-scale loads PostgreSQL: give --postgres URL");
  const store = KEEP
    ? await keptBackend(options.postgres, `d1node_bench_search_keep_${DOCS}`)
    : await backend(options.postgres, "d1node_bench_search");
  const database = await openNodeDatabase({ url: store.url as string });
  try {
    const loaded = await sql<{ found: string | null }>`select to_regclass(${LOADED_MARK}) as found`.execute(
      database.kysely,
    );
    if (loaded.rows[0]?.found) {
      process.stderr.write(`  reusing the ${DOCS}-document index of an earlier run\n`);
    } else {
      await sql`truncate search_docs, search_values`.execute(database.kysely);
      await load(store.url as string);
      await sql`create table ${sql.table(LOADED_MARK)} ()`.execute(database.kysely);
    }
    const size = await sql<{ bytes: string }>`select pg_database_size(current_database()) as bytes`.execute(
      database.kysely,
    );
    // Reads alone: the database read first in the process (its RSS peak its own), a snapshot restart, then the
    // first query answered by SQL beside another read, as below.
    if (READ_ONLY) await recordAloneRead(database, DOCS);
    const index = openSearchIndex(database);
    const caller = { subjects: new Set(["public"]) };
    const page = searchPageRequest();
    const rssBefore = process.memoryUsage().rss;
    const ping = pingOf(database);
    // The memory's read starts in the background (as a node's warm-up starts it); the first query, meanwhile,
    // is answered by SQL.
    const cpuBefore = process.cpuUsage();
    const readStarted = performance.now();
    let readCpu = 0;
    let readDone = false;
    const firstWatch = watchRead(ping);
    const reading = index.prepare().then(() => {
      readDone = true;
      readCpu = cpuSeconds(process.cpuUsage(cpuBefore));
      return (performance.now() - readStarted) / 1000;
    });
    const first = await timeOnce(async () => {
      await searchUncached(index, page, caller);
    });
    const answeredWhileReading = !readDone;
    const read = await reading;
    const firstRead = await firstWatch.stop();
    const firstStatus = index.status();
    if (READ_ONLY) {
      record({
        section: "search-scale",
        name: `first search-page query of a process, beside the memory's read, ${DOCS} docs (postgres)`,
        value: first,
        unit: "ms",
        notes: `${loadAverages()}; answered by SQL alone, ${answeredWhileReading ? "the memory still being read when it was done" : "the memory read before it was done"}; the read ${read.toFixed(1)} s, this process's CPU ${readCpu.toFixed(1)} s (with the query's); ${firstRead.note}`,
      });
      index.close();
      return;
    }
    record({
      section: "search-scale",
      name: `the engine's memory read, the first of the process: RSS peak, ${DOCS} docs (postgres)`,
      value: firstRead.rssPeak / MB,
      unit: "MB",
      baseline: { name: "the engine's count of its bytes", value: firstStatus.bytes / MB, unit: "MB" },
      notes: `${loadAverages()}; ${firstRead.note}; beside the first query (answered by SQL); ${(read).toFixed(1)} s, this process's CPU ${readCpu.toFixed(1)} s`,
    });

    // The read again in a fresh engine, alone (no SQL answer beside it); its memory then saved to a snapshot,
    // and a restart from that snapshot timed against this read.
    const snapshot = PAGES_ONLY ? undefined : await snapshotBench();
    const restarts = snapshot ? await readAloneAndRestart(database, snapshot) : undefined;
    const status = index.status();
    const rss = process.memoryUsage().rss;
    record({
      section: "search-scale",
      name: `first search-page query of a process, ${DOCS} docs (postgres)`,
      value: first,
      unit: "ms",
      notes: `${loadAverages()}; answered by SQL alone, ${answeredWhileReading ? "the memory still being read when it was done" : "the memory read before it was done"}`,
    });
    record({
      section: "search-scale",
      name: `the engine's memory read in the background, ${DOCS} docs (postgres)`,
      value: read,
      unit: "s",
      target: "memory <= 1 GiB budget",
      pass: status.mode === "memory" && status.bytes <= status.budget,
      notes: `${loadAverages()}; beside the first query: this process's CPU ${readCpu.toFixed(1)} s (with the query's); ${restarts?.aloneNote ?? "not read alone"}; mode ${status.mode}; memory held ${(status.bytes / MB).toFixed(0)} MB (${(status.bytes / DOCS).toFixed(0)} B/doc); RSS ${(rssBefore / MB).toFixed(0)} -> ${(rss / MB).toFixed(0)} MB; database ${(Number(size.rows[0]?.bytes) / 2 ** 30).toFixed(1)} GiB`,
    });
    const plain = async () => {
      await sql`select pid, doc from search_docs where format_type = 'METADATA' and obsoleted = 0 and archived = 0
        order by date_uploaded desc limit 25`.execute(database.kysely);
    };
    let variant = 0;
    const distinct = async () => {
      const p = searchPageParams();
      p.add(
        "fq",
        `${keywordClause(variant)} AND NOT ${keywordClause(variant + 1 + Math.floor(variant / 60))}`,
      );
      variant++;
      await runQuery(index, parseSearchRequest(p), caller);
    };
    const unfiltered = async () => {
      await searchUncached(index, page, caller);
    };
    let written = 0;
    const write = async () => {
      const entry = scaleEntryOf(written++ * 97, 1);
      await writeDocument(database, entry.pid, entry.sysmeta, entry.science);
    };
    const base = await percentiles(plain, QUERIES);
    if (!PAGES_ONLY) await recordSqlPage(openSearchIndex(database, { memoryBudget: 1 }), base.p50);
    const timed: [string, { p50: number; p99: number; cpuMs: number }][] = [
      ["search page + a new filter, distinct", await withCpu(() => percentiles(distinct, QUERIES))],
      [
        "search page unfiltered, answer cache bypassed",
        await withCpu(() => percentiles(unfiltered, QUERIES)),
      ],
      [
        "search page right after a document write",
        await withCpu(() => percentiles(unfiltered, QUERIES, write)),
      ],
    ];
    for (const [what, t] of timed) {
      const notes = `${loadAverages()}; over ${QUERIES} queries (baseline p99 ${base.p99.toFixed(2)} ms); Node CPU ${t.cpuMs.toFixed(1)} ms a query`;
      recordPage("search-scale", `${what}, ${DOCS} docs`, "postgres", t, base, [50, 250], notes);
    }
    // A restart from the snapshot made before these queries' writes: it replays them.
    if (snapshot && restarts)
      await recordSnapshotRestart(
        database,
        snapshot,
        DOCS,
        `, ${written} writes after it`,
        restarts.databaseRead,
        restarts.savedNote,
      );
    // A burst of rewrites (500 per transaction), then queries: the first rechecks all 10,000.
    const rereads = index.status().rereads;
    for (let start = 0; start < BURST; start += 500) {
      await writeDocuments(
        database,
        Array.from({ length: 500 }, (_, i) => scaleEntryOf((start + i) * 211, 2)),
      );
    }
    const after: number[] = [];
    for (let i = 0; i < 10; i++) after.push(await timeOnce(unfiltered));
    record({
      section: "search-scale",
      name: `slowest search-page query after a burst of ${BURST} index writes, ${DOCS} docs (postgres)`,
      value: Math.max(...after),
      unit: "ms",
      baseline: { name: "unfiltered page before the burst, p50", value: timed[1]?.[1].p50 ?? 0, unit: "ms" },
      notes: `${loadAverages()}; queries after: ${after.map((t) => t.toFixed(0)).join(", ")} ms; structures read whole during them: ${index.status().rereads - rereads}; memory ${(index.status().bytes / MB).toFixed(0)} MB, RSS ${(process.memoryUsage().rss / MB).toFixed(0)} MB`,
    });
    // The snapshot was made before the writes: a restart replays the documents they changed.
    if (snapshot && restarts) {
      await recordSnapshotRestart(
        database,
        snapshot,
        DOCS,
        `, ${written + BURST} writes after it`,
        restarts.databaseRead,
        restarts.savedNote,
      );
      await snapshot.dispose();
    }
  } finally {
    await database.close();
    await store.dispose();
  }
}
