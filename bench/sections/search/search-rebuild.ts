/**
 * search-rebuild (only when named): a full rebuild of the search index from stored objects (`reindexObjects`, as
 * `d1node index` and the node's background catch-up run it) on SQLite (and PostgreSQL with --postgres).
 *   The objects: BENCH_SEARCH_DOCS (default 100000) EML 2.1.1 documents (bench/lib/corpus/eml-corpus.ts), their
 *   rows loaded in bulk; their bytes come from memory (1,000 distinct documents, each object one of them), so the
 *   figure is the index's (extraction and SQL), not the disk's. Baseline: the XML parse alone of the same
 *   documents, in the same run. Target >= 1,000 docs/s; CPU-milliseconds per document are reported beside it
 *   (this process, all threads; the PostgreSQL backends' from /proc, the writing threads' connections included),
 *   and the cores kept busy (both together over the wall time).
 *   During the rebuild another process requests an HTTP server of the rebuilding process without pause
 *   (bench/lib/measure/row-requests.ts), each request reading an object's row from the database: its p99 against
 *   the same with no rebuild shows how long a request waits behind the rebuild's pages. The requests' share of the CPU is
 *   estimated from their CPU with no rebuild; BENCH_SEARCH_REBUILD_REQUESTS=0 rebuilds without them.
 */
import { loadavg } from "node:os";
import path from "node:path";
import { loadFormatRegistry } from "../../../src/context/formats.ts";
import { bulkLoadObjects } from "../../../src/db/objects/bulk-load.ts";
import type { StoredObject } from "../../../src/db/types.ts";
import { InvalidRequest } from "../../../src/errors/exceptions.ts";
import { openNodeDatabase } from "../../../src/node/open-database.ts";
import { reindexObjects } from "../../../src/search/indexing/reindex.ts";
import type { ObjectStore } from "../../../src/store/types.ts";
import { parseXml } from "../../../src/types/xml-parse.ts";
import { emlDocument } from "../../lib/corpus/eml-corpus.ts";
import { sampleBackendsCpu } from "../../lib/measure/cpu-split.ts";
import { quietRequests, requestsDuring, rowServer } from "../../lib/measure/row-requests.ts";
import { perDocument, tableSizes } from "../../lib/measure/table-sizes.ts";
import { sampleThreadsCpu } from "../../lib/measure/thread-cpu.ts";
import { backend, tempDir } from "../../lib/node.ts";
import { record } from "../../lib/report.ts";
import { databases, type SectionOptions } from "../types.ts";
import { sysmetaOf } from "./search.ts";

const DOCS = Number(process.env.BENCH_SEARCH_DOCS ?? 100_000);
const DISTINCT = 1000;
const PING_SECONDS = 5;
/** BENCH_SEARCH_REBUILD_REQUESTS=0: no requests during the rebuild (its CPU per document is then its own). */
const REQUESTS = process.env.BENCH_SEARCH_REBUILD_REQUESTS !== "0";

export async function searchRebuild(options: SectionOptions): Promise<void> {
  const documents = Array.from({ length: DISTINCT }, (_, i) => Buffer.from(emlDocument(i)));
  // BENCH_SEARCH_ONLY=sqlite|postgres: one dialect, as in the search section.
  const only = process.env.BENCH_SEARCH_ONLY;
  for (const url of databases(options))
    if (only === undefined || only === (url ? "postgres" : "sqlite")) await onBackend(url, documents);
}

async function onBackend(pgUrl: string | undefined, documents: Buffer[]): Promise<void> {
  const tmp = await tempDir("search-rebuild");
  const store = await backend(pgUrl);
  const db = await openNodeDatabase(
    store.url ? { url: store.url } : { sqlitePath: path.join(tmp.dir, "r.sqlite") },
  );
  const server = await rowServer(db, DOCS);
  try {
    await bulkLoadObjects(db, objects(documents), () => undefined);
    const parsed = parseRate(documents);
    const quiet = REQUESTS ? await quietRequests(server, PING_SECONDS) : undefined;
    const load = loadavg()[0] ?? 0;
    const cpu0 = process.cpuUsage();
    const backends = sampleBackendsCpu(store.url);
    const threads = sampleThreadsCpu();
    const began = performance.now();
    let done = 0;
    // When the last page was written: the rest is the end (the dropped indexes built), each index's seconds.
    let pagesDone: number | undefined;
    const built: string[] = [];
    const rebuild = async () => {
      const ctx = { db, store: storeOf(documents), formats: loadFormatRegistry() };
      await reindexObjects(ctx, {
        batchSize: 500,
        onProgress: ({ seen }) => {
          if (seen >= DOCS) pagesDone ??= performance.now();
          if (seen - done < 10_000) return;
          process.stderr.write(`\r  rebuilt ${seen} / ${DOCS}`);
          done = seen;
        },
        onEnd: ({ last }) => {
          if (last) built.push(`${last.index} ${last.seconds.toFixed(0)} s`);
        },
      });
    };
    const during = REQUESTS ? await requestsDuring(server, rebuild) : await rebuild().then(() => undefined);
    process.stderr.write("\n");
    const ended = performance.now();
    const seconds = (ended - began) / 1000;
    const endSeconds = (ended - (pagesDone ?? ended)) / 1000;
    const cpu = process.cpuUsage(cpu0);
    const own = (cpu.user + cpu.system) / 1000 / DOCS;
    const backendSeconds = backends.stop();
    // The busiest threads' CPU per document: on SQLite the first is the writing thread, which bounds the rate.
    const busiest = threads
      .stop()
      .slice(0, 4)
      .map((seconds) => ((seconds * 1000) / DOCS).toFixed(2));
    const backendMs = (backendSeconds * 1000) / DOCS;
    // Cores kept busy: CPU-seconds of this process and the backends over the wall time.
    const cores = ((cpu.user + cpu.system) / 1e6 + backendSeconds) / seconds;
    // The requests' share of this process's CPU, at what they cost with no rebuild.
    const requestsMs = during && quiet ? (during.count * quiet.cpuMsPerRequest) / DOCS : 0;
    const rate = DOCS / seconds;
    const disk = perDocument(await tableSizes(db), DOCS);
    record({
      section: "search-rebuild",
      name: `full rebuild of ${DOCS} EML documents (${db.dialect}${REQUESTS ? "" : ", no requests"})`,
      value: rate,
      unit: "docs/s",
      baseline: { name: "XML parse alone", value: parsed.rate, unit: "docs/s" },
      ratio: rate / parsed.rate,
      target: ">= 1000 docs/s",
      pass: rate >= 1000,
      notes: [
        `${seconds.toFixed(0)} s (the end, after the last page: ${endSeconds.toFixed(0)} s: ${built.join(", ")}); CPU per document ${own.toFixed(2)} ms here (all threads; ${(cpu.system / 1000 / DOCS).toFixed(2)} ms of it in the kernel)`,
        db.dialect === "postgres" ? ` + ${backendMs.toFixed(2)} ms PostgreSQL backend` : "",
        during ? `, of which ~${requestsMs.toFixed(2)} ms the ${during.count} requests answered` : "",
        `; ${cores.toFixed(2)} cores busy; the busiest threads ${busiest.join(" / ")} ms per document`,
        `; XML parse alone ${parsed.cpuMs.toFixed(3)} ms CPU per document`,
        `; load average ${load.toFixed(1)} at the start, ${(loadavg()[0] ?? 0).toFixed(1)} at the end`,
        `; disk ${disk}`,
      ].join(""),
    });
    if (!during || !quiet) return;
    record({
      section: "search-rebuild",
      name: `small request p99 during the rebuild (${db.dialect})`,
      value: during.p99,
      unit: "ms",
      baseline: { name: "the same, no rebuild", value: quiet.p99, unit: "ms" },
      ratio: during.p99 / quiet.p99,
      notes: `p50 ${during.p50.toFixed(1)} ms (no rebuild ${quiet.p50.toFixed(1)} ms), max ${during.max.toFixed(0)} ms, ${during.count} requests; ${quiet.cpuMsPerRequest.toFixed(2)} ms CPU a request with no rebuild`,
    });
  } finally {
    server.close();
    await db.close();
    await store.dispose();
    await tmp.dispose();
  }
}

function* objects(documents: Buffer[]): Iterable<StoredObject> {
  for (let i = 0; i < DOCS; i++) {
    const bytes = documents[i % DISTINCT] as Buffer;
    const digests = { size: bytes.length, md5: "", sha1: "", sha256: `${i % DISTINCT}`.padStart(64, "0") };
    yield {
      contentKey: digests.sha256,
      digests,
      isReplica: false,
      sysmeta: { ...sysmetaOf(i, bytes.length), serialVersion: 1 },
    };
  }
}

/** The documents' bytes by content key (the index of the document, as a 64-digit key). */
function storeOf(documents: Buffer[]): ObjectStore {
  return {
    async *read(key: string) {
      yield documents[Number(key)] as Buffer;
    },
  } as unknown as ObjectStore;
}

/** Documents per second through the XML parser alone (5,000 parses), and its CPU-milliseconds per document. */
function parseRate(documents: Buffer[]): { rate: number; cpuMs: number } {
  const cpu0 = process.cpuUsage();
  const began = performance.now();
  for (let i = 0; i < 5000; i++) parseXml(documents[i % DISTINCT] as Buffer, InvalidRequest);
  const cpu = process.cpuUsage(cpu0);
  return { rate: 5000 / ((performance.now() - began) / 1000), cpuMs: (cpu.user + cpu.system) / 1000 / 5000 };
}
