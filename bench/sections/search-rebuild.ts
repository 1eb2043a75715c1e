/**
 * search-rebuild (only when named): a full rebuild of the search index from stored objects (`reindexObjects`, as
 * `d1node index` and the node's background catch-up run it) on SQLite (and PostgreSQL with --postgres).
 *   The objects: BENCH_SEARCH_DOCS (default 100000) EML 2.1.1 documents (bench/lib/eml-corpus.ts), their rows
 *   loaded in bulk; their bytes come from memory (1,000 distinct documents, each object one of them), so the
 *   figure is the index's (extraction and SQL), not the disk's. Baseline: the XML parse alone of the same
 *   documents, in the same run. Target >= 1,000 docs/s; CPU-milliseconds per document are reported beside it
 *   (this process, all threads; the PostgreSQL backend's from /proc).
 *   During the rebuild another process pings an HTTP server of the rebuilding process without pause (keep-alive),
 *   each request reading an object's row from the database: its p99 against the same with no rebuild shows how
 *   long a request waits behind the rebuild's pages.
 */
import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";
import { sql } from "kysely";
import { bulkLoadObjects } from "../../src/db/bulk-load.ts";
import { openDatabase } from "../../src/db/index.ts";
import type { Database, StoredObject } from "../../src/db/types.ts";
import { InvalidRequest } from "../../src/errors/exceptions.ts";
import { reindexObjects } from "../../src/search/reindex.ts";
import { loadFormatRegistry } from "../../src/services/formats.ts";
import type { ObjectStore } from "../../src/store/types.ts";
import { parseXml } from "../../src/types/xml-parse.ts";
import { emlDocument } from "../lib/eml-corpus.ts";
import { backend, tempDir } from "../lib/node.ts";
import { record } from "../lib/report.ts";
import { sysmetaOf } from "./search.ts";
import { databases, type SectionOptions } from "./types.ts";

const DOCS = Number(process.env.BENCH_SEARCH_DOCS ?? 100_000);
const DISTINCT = 1000;
const PING_SECONDS = 5;

export async function searchRebuild(options: SectionOptions): Promise<void> {
  const documents = Array.from({ length: DISTINCT }, (_, i) => Buffer.from(emlDocument(i)));
  for (const url of databases(options)) await onBackend(url, documents);
}

async function onBackend(pgUrl: string | undefined, documents: Buffer[]): Promise<void> {
  const tmp = await tempDir("search-rebuild");
  const store = await backend(pgUrl);
  const db = await openDatabase(
    store.url ? { url: store.url } : { sqlitePath: path.join(tmp.dir, "r.sqlite") },
  );
  const server = await pingServer(db);
  try {
    await bulkLoadObjects(db, objects(documents), () => undefined);
    const parsed = parseRate(documents);
    const quiet = await pings(
      server,
      () => new Promise((resolve) => setTimeout(resolve, PING_SECONDS * 1000)),
    );
    const backends = await backendPids(db);
    const cpu0 = process.cpuUsage();
    const pg0 = cpuOf(backends);
    const began = performance.now();
    let done = 0;
    const during = await pings(server, async () => {
      const ctx = { db, store: storeOf(documents), formats: loadFormatRegistry() };
      await reindexObjects(ctx, {
        batchSize: 500,
        onProgress: ({ seen }) => {
          if (seen - done < 10_000) return;
          process.stderr.write(`\r  rebuilt ${seen} / ${DOCS}`);
          done = seen;
        },
      });
    });
    process.stderr.write("\n");
    const seconds = (performance.now() - began) / 1000;
    const cpu = process.cpuUsage(cpu0);
    const own = (cpu.user + cpu.system) / 1000 / DOCS;
    const backendMs = ((cpuOf(backends) - pg0) * 1000) / DOCS;
    const rate = DOCS / seconds;
    record({
      section: "search-rebuild",
      name: `full rebuild of ${DOCS} EML documents (${db.dialect})`,
      value: rate,
      unit: "docs/s",
      baseline: { name: "XML parse alone", value: parsed, unit: "docs/s" },
      ratio: rate / parsed,
      target: ">= 1000 docs/s",
      pass: rate >= 1000,
      notes: `${seconds.toFixed(0)} s; CPU per document ${own.toFixed(2)} ms here (all threads)${
        db.dialect === "postgres" ? ` + ${backendMs.toFixed(2)} ms PostgreSQL backend` : ""
      }`,
    });
    record({
      section: "search-rebuild",
      name: `small request p99 during the rebuild (${db.dialect})`,
      value: during.p99,
      unit: "ms",
      baseline: { name: "the same, no rebuild", value: quiet.p99, unit: "ms" },
      ratio: during.p99 / quiet.p99,
      notes: `p50 ${during.p50.toFixed(1)} ms (no rebuild ${quiet.p50.toFixed(1)} ms), max ${during.max.toFixed(0)} ms, ${during.count} requests`,
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

/** Documents per second through the XML parser alone (5,000 parses). */
function parseRate(documents: Buffer[]): number {
  const began = performance.now();
  for (let i = 0; i < 5000; i++) parseXml(documents[i % DISTINCT] as Buffer, InvalidRequest);
  return 5000 / ((performance.now() - began) / 1000);
}

/** Each request reads one object's row (a random one: past the row cache) from the rebuilding node's database. */
function pingServer(db: Database): Promise<http.Server & { port: number }> {
  const server = http.createServer((_request, response) => {
    db.objects.get(`bench.${Math.floor(Math.random() * DOCS)}.1`).then(
      (object) => response.end(object ? "ok" : "missing"),
      () => response.end("failed"),
    );
  }) as http.Server & { port: number };
  return new Promise((resolve) =>
    server.listen(0, "127.0.0.1", () => {
      server.port = (server.address() as AddressInfo).port;
      resolve(server);
    }),
  );
}

interface Latencies {
  p50: number;
  p99: number;
  max: number;
  count: number;
}

/** Ping `server` from another process, one request after another, while `work` runs. */
async function pings(server: { port: number }, work: () => Promise<void>): Promise<Latencies> {
  const client = spawn(process.execPath, ["-e", PINGER, String(server.port)], {
    stdio: ["pipe", "pipe", "inherit"],
  });
  let out = "";
  client.stdout.on("data", (chunk: Buffer) => {
    out += chunk.toString();
  });
  const ended = new Promise((resolve) => client.on("close", resolve));
  await work();
  client.stdin.end();
  await ended;
  const ms = (JSON.parse(out) as number[]).sort((a, b) => a - b);
  const at = (q: number) => ms[Math.min(ms.length - 1, Math.floor(q * ms.length))] ?? 0;
  return { p50: at(0.5), p99: at(0.99), max: ms.at(-1) ?? 0, count: ms.length };
}

/** Pings until its standard input ends, then prints the latencies (ms) as JSON. */
const PINGER = `
const http = require("node:http");
const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
const ms = []; let stop = false;
process.stdin.on("data", () => {}); process.stdin.on("end", () => { stop = true; });
(async () => {
  while (!stop) {
    const t = process.hrtime.bigint();
    const ok = await new Promise((resolve) => http.get({ host: "127.0.0.1", port: Number(process.argv[1]), agent },
      (r) => { r.resume(); r.on("end", () => resolve(true)); }).on("error", () => resolve(false)));
    if (ok) ms.push(Number(process.hrtime.bigint() - t) / 1e6);
    await new Promise((resolve) => setTimeout(resolve, 2));
  }
  process.stdout.write(JSON.stringify(ms)); agent.destroy();
})();`;

async function backendPids(db: Database): Promise<number[]> {
  if (db.dialect !== "postgres") return [];
  const rows = await sql<{
    pid: number;
  }>`select pid from pg_stat_activity where datname = current_database()`.execute(db.kysely);
  return rows.rows.map((row) => row.pid);
}

/** CPU-seconds of these processes (Linux /proc). */
function cpuOf(pids: number[]): number {
  let seconds = 0;
  for (const pid of pids) {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    seconds += (Number(fields[11]) + Number(fields[12])) / 100;
  }
  return seconds;
}
