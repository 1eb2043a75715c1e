/**
 * list: MNRead.listObjects pages of 1000 on a node holding 1,000,000 objects (made by `d1node load`, itself
 * timed: target well under a minute on SQLite). Paged by start/count on one keep-alive connection, as a
 * harvester does, for an administrator (no access filter) and for public (filtered by access rules):
 *   cold jumps (fresh node, nothing remembered) to start=500000 and start=999000;
 *   a sequential pass over all pages, which warms the path;
 *   windows of 50 pages at the start, the middle (start=500000) and the end (start=950000 .. 999000).
 * Target: >= 150 pages/s, flat from the first window to the last. Baseline, in the same run: the same 1000-entry
 * page served by a bare Fastify server from memory (the transport's ceiling for a page of that size).
 */
import { writeFile } from "node:fs/promises";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { KeepAliveClient } from "../../lib/clients.ts";
import { type Backend, backend, dbFlags, runCli, startNode, tempDir } from "../../lib/node.ts";
import { median, serve } from "../../lib/processes.ts";
import { record } from "../../lib/report.ts";
import { databases, type SectionOptions } from "../types.ts";

const OBJECTS = Number(process.env.BENCH_LIST_OBJECTS ?? 1_000_000);
const PAGE = 1000;
const WINDOW = 50;
const TARGET = 150;
const HELLO = fileURLToPath(new URL("../../hello-server.ts", import.meta.url));

export async function list(options: SectionOptions): Promise<void> {
  for (const url of databases(options)) await onBackend(options, url);
}

async function onBackend(options: SectionOptions, pgUrl: string | undefined): Promise<void> {
  const tmp = await tempDir("list");
  const db = await backend(pgUrl);
  const dataDir = path.join(tmp.dir, "data");
  try {
    const seconds = await runCli(["load", "--count", String(OBJECTS), "--data-dir", dataDir, ...dbFlags(db)]);
    process.stderr.write("\n");
    record({
      section: "list",
      name: `d1node load --count ${OBJECTS} (${db.dialect})`,
      value: seconds,
      unit: "s",
      ...(db.dialect === "sqlite" ? { target: "well under a minute", pass: seconds < 45 } : {}),
      notes: `${Math.round(OBJECTS / seconds)} objects/s`,
    });
    for (const who of ["admin", "public"] as const) await paging(options, dataDir, db, who, tmp.dir);
  } finally {
    await db.dispose();
    await tmp.dispose();
  }
}

async function paging(
  options: SectionOptions,
  dataDir: string,
  db: Backend,
  who: "admin" | "public",
  tmpDir: string,
) {
  const label = `${who === "admin" ? "administrator, no access filter" : "public, access-filtered"}, ${db.dialect}`;
  // The loaded objects have no search documents; the node's catch-up would index them meanwhile on the same cores.
  const node = await startNode(dataDir, db, { D1NODE_INDEX_CATCH_UP: "false" });
  const client = new KeepAliveClient(who === "admin" ? node.token : undefined);
  const pageUrl = (start: number) => `${node.baseUrl}/v2/object?start=${start}&count=${PAGE}`;
  const last = OBJECTS - PAGE;
  try {
    // Cold: a fresh node remembers no positions (nor the total).
    const first = await client.ok(pageUrl(0));
    const firstPage = first.ms;
    const jumpMiddle = (await client.ok(pageUrl(OBJECTS / 2))).ms;
    const jumpEnd = (await client.ok(pageUrl(last))).ms;
    record({
      section: "list",
      name: `cold jumps, fresh node (${label})`,
      value: jumpEnd,
      unit: `ms to start=${last}`,
      notes: `first page ${firstPage.toFixed(0)} ms (includes the total count); start=${OBJECTS / 2} ${jumpMiddle.toFixed(0)} ms`,
    });
    const pass = Date.now();
    let pages = 0;
    for (let start = 0; start < OBJECTS; start += PAGE) {
      await client.ok(pageUrl(start));
      pages++;
    }
    const full = pages / ((Date.now() - pass) / 1000);
    record({
      section: "list",
      name: `sequential pass over all ${pages} pages (${label})`,
      value: full,
      unit: "pages/s",
      target: `>= ${TARGET} pages/s`,
      pass: full >= TARGET,
    });
    const ceiling = await staticPageRate(options, first.body, tmpDir);
    const windows: Record<string, number> = {};
    for (const [name, from] of [
      ["start", 0],
      ["middle", OBJECTS / 2],
      ["end", OBJECTS - WINDOW * PAGE],
    ] as const) {
      const runs: number[] = [];
      for (let r = 0; r < options.runs; r++) runs.push(await window(client, pageUrl, from));
      windows[name] = median(runs);
      record({
        section: "list",
        name: `${WINDOW} pages from start=${from} (${label})`,
        value: windows[name] as number,
        unit: "pages/s",
        baseline: { name: "the same page from a bare Fastify server", value: ceiling, unit: "pages/s" },
        ratio: (windows[name] as number) / ceiling,
        target: `>= ${TARGET} pages/s`,
        pass: (windows[name] as number) >= TARGET,
        runs,
      });
    }
    const flat = (windows.end as number) / (windows.start as number);
    record({
      section: "list",
      name: `flatness: end window / start window (${label})`,
      value: flat,
      unit: "x",
      target: "flat (>= 0.8)",
      pass: flat >= 0.8,
    });
  } finally {
    client.close();
    await node.stop();
  }
}

/** Pages per second of `body` served from memory by a bare Fastify server, over one keep-alive connection. */
async function staticPageRate(options: SectionOptions, body: Buffer, tmpDir: string): Promise<number> {
  const file = path.join(tmpDir, "page.xml");
  await writeFile(file, body);
  const hello = await serve(["--import", "tsx", HELLO, file]);
  const client = new KeepAliveClient();
  try {
    const runs: number[] = [];
    for (let r = 0; r < options.runs; r++) runs.push(await window(client, () => `${hello.url}page`, 0));
    return median(runs);
  } finally {
    client.close();
    await hello.stop();
  }
}

async function window(
  client: KeepAliveClient,
  pageUrl: (start: number) => string,
  from: number,
): Promise<number> {
  const started = process.hrtime.bigint();
  for (let i = 0; i < WINDOW; i++) await client.ok(pageUrl(from + i * PAGE));
  return WINDOW / (Number(process.hrtime.bigint() - started) / 1e9);
}
