/**
 * small-create: MNStorage.create of 1 KiB objects by 8 concurrent keep-alive clients in another process.
 * Target: >= 500 creates/s. Baseline, in the same run: what durably writing a small file costs on this machine
 * (write + fsync + rename + directory fsync, 8 at a time). The notes give the server's CPU-ms per create (the
 * process, its main thread, and on PostgreSQL the database's backends) and the load average: under a shared
 * machine's load the CPU per create is the figure to compare. On SQLite a second node, whose writes do not wait
 * for their commit's flush to disk (sqliteDurableCommits false, as before that was the default), runs the same
 * load in turn: the cost of durable commits, as a second figure.
 */
import { mkdir, open, rename } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { createLoad } from "../../lib/clients.ts";
import { postgresCpuSeconds } from "../../lib/measure/cpu-split.ts";
import { backend, startNode, tempDir } from "../../lib/node.ts";
import { cpuSecondsOf, median, threadCpuSecondsOf } from "../../lib/processes.ts";
import { record } from "../../lib/report.ts";
import { databases, type SectionOptions } from "../types.ts";

const CONCURRENCY = 8;
const CREATES = 3000;
const FILES = 3000;

export async function smallCreate(options: SectionOptions): Promise<void> {
  for (const url of databases(options)) await onBackend(options, url);
}

async function onBackend(options: SectionOptions, pgUrl: string | undefined): Promise<void> {
  const tmp = await tempDir("small-create");
  const db = await backend(pgUrl);
  const node = await startNode(path.join(tmp.dir, "data"), db);
  const undurable = db.url
    ? undefined
    : await startNode(path.join(tmp.dir, "data-undurable"), db, { D1NODE_SQLITE_DURABLE_COMMITS: "false" });
  try {
    const load = { baseUrl: node.baseUrl, token: node.token, concurrency: CONCURRENCY };
    const undurableLoad = undurable && { ...load, baseUrl: undurable.baseUrl, token: undurable.token };
    await createLoad({ ...load, count: 300, prefix: "warm-" });
    if (undurableLoad) await createLoad({ ...undurableLoad, count: 300, prefix: "warm-" });
    const undurableRuns: number[] = [];
    const nodeRuns: number[] = [];
    const fileRuns: number[] = [];
    const cpuRuns: string[] = [];
    for (let i = 0; i < options.runs; i++) {
      fileRuns.push(await durableFiles(path.join(tmp.dir, `files-${i}`), FILES, CONCURRENCY));
      const before = cpuOf(node.pid, db.url);
      nodeRuns.push((await createLoad({ ...load, count: CREATES, prefix: `run${i}-` })).perSecond);
      cpuRuns.push(perCreate(before, cpuOf(node.pid, db.url), CREATES));
      if (undurableLoad) {
        undurableRuns.push(
          (await createLoad({ ...undurableLoad, count: CREATES, prefix: `run${i}-` })).perSecond,
        );
      }
    }
    const value = median(nodeRuns);
    const baseline = median(fileRuns);
    record({
      section: "small-create",
      name: `create 1 KiB, ${CONCURRENCY} clients (${db.dialect})`,
      value,
      unit: "creates/s",
      baseline: { name: "write+fsync+rename+dir fsync", value: baseline, unit: "files/s" },
      ratio: value / baseline,
      target: ">= 500 creates/s",
      pass: value >= 500,
      runs: nodeRuns,
      notes:
        `file baseline runs: ${fileRuns.map((r) => Math.round(r)).join(", ")}; ` +
        `server CPU-ms per create (process / main thread${db.url ? " / PostgreSQL" : ""}): ` +
        `${cpuRuns.join(", ")}; load average ${os
          .loadavg()
          .map((l) => l.toFixed(1))
          .join(" ")}`,
    });
    if (undurableRuns.length > 0) {
      const undurableValue = median(undurableRuns);
      record({
        section: "small-create",
        name: `create 1 KiB, ${CONCURRENCY} clients, durable commits (sqlite)`,
        value,
        unit: "creates/s",
        baseline: {
          name: "commits not waited for (synchronous=NORMAL alone)",
          value: undurableValue,
          unit: "creates/s",
        },
        ratio: value / undurableValue,
        target: ">= 500 creates/s",
        pass: value >= 500,
        runs: nodeRuns,
        notes: `runs without waiting: ${undurableRuns.map((r) => Math.round(r)).join(", ")}`,
      });
    }
  } finally {
    await undurable?.stop();
    await node.stop();
    await db.dispose();
    await tmp.dispose();
  }
}

/** Durable small-file writes per second: temp file, fsync, rename into place, fsync the folder. */
async function durableFiles(dir: string, count: number, concurrency: number): Promise<number> {
  await mkdir(path.join(dir, "tmp"), { recursive: true });
  await mkdir(path.join(dir, "objects"), { recursive: true });
  const bytes = Buffer.alloc(1024, 0x2e);
  let next = 0;
  const worker = async () => {
    for (let i = next++; i < count; i = next++) {
      const temp = path.join(dir, "tmp", String(i));
      const file = await open(temp, "wx");
      await file.write(bytes, 0, bytes.length, 0);
      await file.sync();
      await file.close();
      await rename(temp, path.join(dir, "objects", String(i)));
      const folder = await open(path.join(dir, "objects"), "r");
      await folder.sync();
      await folder.close();
    }
  };
  const started = process.hrtime.bigint();
  await Promise.all(Array.from({ length: concurrency }, worker));
  return count / (Number(process.hrtime.bigint() - started) / 1e9);
}

/** CPU-seconds so far of the server process, its main thread and (PostgreSQL) the database's backends. */
function cpuOf(pid: number, databaseUrl: string | undefined): number[] {
  return [cpuSecondsOf(pid), threadCpuSecondsOf(pid, pid), postgresCpuSeconds(databaseUrl)];
}

/** "process / main thread[ / PostgreSQL]" CPU-ms per create between two readings of `cpuOf`. */
function perCreate(before: number[], after: number[], creates: number): string {
  const ms = after.map((seconds, i) => (((seconds - (before[i] ?? 0)) * 1000) / creates).toFixed(2));
  return (after[2] ? ms : ms.slice(0, 2)).join(" / ");
}
