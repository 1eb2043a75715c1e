/**
 * search-scale's restart figures: the engine's memory saved to a snapshot file (src/search/memory-snapshot.ts),
 * then a fresh engine (as a restarted node) reading it in place of the database, replaying the documents
 * changed since, until the memory answers the search page; beside the database read of the same run.
 */
import { mkdtemp, rm, stat } from "node:fs/promises";
import { loadavg, tmpdir } from "node:os";
import path from "node:path";
import { sql } from "kysely";
import type { Database } from "../../../src/db/types.ts";
import { searchUncached } from "../../../src/search/answers/search.ts";
import type { SnapshotOptions } from "../../../src/search/memory-snapshot.ts";
import { openSearchIndex, type SearchIndex } from "../../../src/search/search-index.ts";
import { searchPageRequest } from "../../../src/search/warm.ts";
import { watchRead } from "../../lib/measure/read-watch.ts";
import { record } from "../../lib/report.ts";

const MB = 1024 * 1024;
const cpuSeconds = (cpu: NodeJS.CpuUsage) => (cpu.user + cpu.system) / 1e6;
const loadAverage = () => `load ${loadavg()[0]?.toFixed(1)}`;

export interface SnapshotBench {
  options: SnapshotOptions;
  dispose(): Promise<void>;
}

/** A snapshot file in a folder of its own, removed by `dispose`. */
export async function snapshotBench(): Promise<SnapshotBench> {
  const dir = await mkdtemp(path.join(tmpdir(), "d1node-bench-snapshot-"));
  return {
    options: {
      file: path.join(dir, "search-memory.snapshot"),
      warn: (message) => process.stderr.write(`  ${message}\n`),
    },
    dispose: () => rm(dir, { recursive: true, force: true }),
  };
}

/** The memory of `source` saved: seconds, CPU seconds, bytes. */
export async function saveSnapshot(source: SearchIndex, bench: SnapshotBench) {
  const memory = source.memory();
  if (!memory) throw new Error("no memory to save");
  const cpu = process.cpuUsage();
  const began = performance.now();
  await source.snapshots.save(memory);
  const seconds = (performance.now() - began) / 1000;
  return { seconds, cpu: cpuSeconds(process.cpuUsage(cpu)), bytes: (await stat(bench.options.file)).size };
}

/**
 * A fresh engine started from the snapshot, timed until its memory has answered the search page; recorded
 * against `databaseRead` (the same memory read from the database in this run, alone).
 */
export async function recordSnapshotRestart(
  database: Database,
  bench: SnapshotBench,
  docs: number,
  what: string,
  databaseRead: { seconds: number; cpu: number },
  saved: string,
): Promise<void> {
  const index = openSearchIndex(database, { snapshot: bench.options });
  try {
    const cpu = process.cpuUsage();
    const began = performance.now();
    const watch = watchRead(pingOf(database));
    await index.prepare();
    const watched = await watch.stop();
    await searchUncached(index, searchPageRequest(), { subjects: new Set(["public"]) });
    const seconds = (performance.now() - began) / 1000;
    const used = cpuSeconds(process.cpuUsage(cpu));
    const status = index.status();
    record({
      section: "search-scale",
      name: `restart from a snapshot${what}: until the memory answers the search page, ${docs} docs (postgres)`,
      value: seconds,
      unit: "s",
      baseline: { name: "the memory read from the database, alone", value: databaseRead.seconds, unit: "s" },
      target: "<= 5 s",
      pass: seconds <= 5 && status.mode === "memory",
      notes: `${loadAverage()}; this process's CPU ${used.toFixed(1)} s vs ${databaseRead.cpu.toFixed(1)} s for the database read; structures read whole: ${status.rereads}, rechecked: ${status.rechecks}; memory ${(status.bytes / MB).toFixed(0)} MB; ${saved}; while read: ${watched.note}`,
    });
  } finally {
    index.close();
  }
}

/** A small request: one row of the index (what a request served during a read waits for, at least). */
export function pingOf(database: Database): () => Promise<void> {
  return async () => {
    await sql`select pid from search_docs limit 1`.execute(database.kysely);
  };
}

/**
 * The memory read alone from the database by a fresh engine (watched: RSS, event loop, a small request
 * meanwhile), saved to a snapshot, and a restart from that snapshot (watched too).
 */
export async function recordAloneRead(database: Database, docs: number): Promise<void> {
  const bench = await snapshotBench();
  try {
    const index = openSearchIndex(database, { snapshot: bench.options });
    const cpu = process.cpuUsage();
    const began = performance.now();
    const watch = watchRead(pingOf(database));
    await index.prepare();
    const seconds = (performance.now() - began) / 1000;
    const used = cpuSeconds(process.cpuUsage(cpu));
    const watched = await watch.stop();
    const status = index.status();
    record({
      section: "search-scale",
      name: `the engine's memory read from the database, alone, ${docs} docs (postgres)`,
      value: seconds,
      unit: "s",
      notes: `${loadAverage()}; this process's CPU ${used.toFixed(1)} s; mode ${status.mode}; memory counted ${(status.bytes / MB).toFixed(0)} MB (${(status.bytes / docs).toFixed(0)} B/doc); ${watched.note}`,
    });
    const saved = await saveSnapshot(index, bench);
    index.close();
    const savedNote = `snapshot written in ${saved.seconds.toFixed(1)} s (CPU ${saved.cpu.toFixed(1)} s), ${(saved.bytes / MB).toFixed(0)} MB`;
    await recordSnapshotRestart(database, bench, docs, "", { seconds, cpu: used }, savedNote);
  } finally {
    await bench.dispose();
  }
}
