/**
 * small-create: MNStorage.create of 1 KiB objects by 8 concurrent keep-alive clients in another process.
 * Target: >= 500 creates/s. Baseline, in the same run: what durably writing a small file costs on this machine
 * (write + fsync + rename + directory fsync, 8 at a time).
 */
import { mkdir, open, rename } from "node:fs/promises";
import path from "node:path";
import { createLoad } from "../lib/clients.ts";
import { backend, startNode, tempDir } from "../lib/node.ts";
import { median } from "../lib/processes.ts";
import { record } from "../lib/report.ts";
import { databases, type SectionOptions } from "./types.ts";

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
  try {
    const load = { baseUrl: node.baseUrl, token: node.token, concurrency: CONCURRENCY };
    await createLoad({ ...load, count: 300, prefix: "warm-" });
    const nodeRuns: number[] = [];
    const fileRuns: number[] = [];
    for (let i = 0; i < options.runs; i++) {
      fileRuns.push(await durableFiles(path.join(tmp.dir, `files-${i}`), FILES, CONCURRENCY));
      nodeRuns.push((await createLoad({ ...load, count: CREATES, prefix: `run${i}-` })).perSecond);
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
      notes: `file baseline runs: ${fileRuns.map((r) => Math.round(r)).join(", ")}`,
    });
  } finally {
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
