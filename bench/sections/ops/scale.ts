/**
 * scale (run only when named, PostgreSQL only: `npm run bench -- scale --postgres URL`): a Member Node holding
 * BENCH_SCALE_OBJECTS objects (default 10,000,000, by `d1node load`, one in BENCH_SCALE_PUBLIC_EVERY (1000)
 * readable by public) and BENCH_SCALE_EVENTS event-log entries (default 50,000,000, by COPY), in a database of
 * its own (d1node_scale_*, dropped at the end). Small sizes make a quick check. Figures:
 *   loading: rows/s, and the event log's size on disk per million entries (table and indexes);
 *   start-up: from starting the process to its first answered listObjects page, and its RSS;
 *   getLogRecords and listObjects pages of 1000 by start/count, as a harvester asks: the cold first page
 *   (includes the total), cold jumps to the middle and the end, then windows of pages at the first, middle and
 *   last positions, each window against the first one (the baseline: flat means a ratio near 1). The log also
 *   in a date window (fromDate/toDate over a tenth of it) and for one event type (event=create, 1 %), listObjects
 *   also as public (reads 1 in BENCH_SCALE_PUBLIC_EVERY).
 * The machine's load average is printed with the figures (the cores may be shared).
 * BENCH_SCALE_KEEP=NAME keeps the loaded data for later runs: database NAME on the server and the data folder
 * NAME in the system's temp folder; a run finding them loaded skips the loading (drop both by hand).
 * BENCH_SCALE_LOAD_ONLY=1 stops after the loading (with BENCH_SCALE_KEEP: load now, measure later).
 */
import os from "node:os";
import path from "node:path";
import pg from "pg";
import { progressLine } from "../../../src/cli/progress.ts";
import { KeepAliveClient } from "../../lib/clients.ts";
import { copyEvents } from "../../lib/corpus/scale-events.ts";
import {
  firstAnswer,
  loadAverage,
  recordStartUp,
  timeJumps,
  warmedUp,
} from "../../lib/measure/scale-start.ts";
import { type Backend, type BenchNode, backend, dbFlags, runCli, tempDir } from "../../lib/node.ts";
import { median, rssOf } from "../../lib/processes.ts";
import { record } from "../../lib/report.ts";
import type { SectionOptions } from "../types.ts";

const OBJECTS = Number(process.env.BENCH_SCALE_OBJECTS ?? 10_000_000);
const EVENTS = Number(process.env.BENCH_SCALE_EVENTS ?? 50_000_000);
const PUBLIC_EVERY = Number(process.env.BENCH_SCALE_PUBLIC_EVERY ?? 10);
const KEEP = process.env.BENCH_SCALE_KEEP;
const PAGE = 1000;
const WINDOW = 20;
const NODE_ID = "urn:node:SCALE";
const PREFIX = "scale-";
const FIRST_DATE = Date.UTC(2020, 0, 1);
const SPACING_MS = 500;

export async function scale(options: SectionOptions): Promise<void> {
  if (!options.postgres) throw new Error("the scale section runs on PostgreSQL: add --postgres URL");
  const tmp = await tempDir("scale");
  const db = KEEP
    ? await keptBackend(options.postgres, KEEP)
    : await backend(options.postgres, "d1node_scale");
  const dataDir = KEEP ? path.join(os.tmpdir(), KEEP) : path.join(tmp.dir, "data");
  try {
    if (!(await loaded(db))) {
      await loadObjects(dataDir, db);
      await loadEvents(db);
    }
    if (process.env.BENCH_SCALE_LOAD_ONLY === "1") return;
    // The first start on the data: pages and jumps as they come, while the positions warm in the background.
    const first = await firstAnswer(dataDir, db);
    try {
      await logPaging(options, first.node);
      await listPaging(options, first.node);
      record({
        section: "scale",
        name: "node RSS after the paging",
        value: rssOf(first.node.pid) / 2 ** 20,
        unit: "MiB",
        notes: loadAverage(),
      });
    } finally {
      await first.node.stop();
    }
    await afterRestart(dataDir, db, path.join(tmp.dir, "empty"), options);
  } finally {
    await db.dispose();
    await tmp.dispose();
  }
}

/** Database `name`, created when missing and never dropped. */
async function keptBackend(adminUrl: string, name: string): Promise<Backend> {
  if (!/^[a-z_][a-z0-9_]*$/.test(name))
    throw new Error(`BENCH_SCALE_KEEP: not a plain database name: ${name}`);
  const found = await query(adminUrl, `select 1 from pg_database where datname = '${name}'`);
  if (found.length === 0) await query(adminUrl, `create database ${name}`);
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return { dialect: "postgres", url: url.toString(), dispose: async () => undefined };
}

/** Whether a kept database already holds the events (loaded last). */
async function loaded(db: Backend): Promise<boolean> {
  if (!KEEP) return false;
  const url = db.url as string;
  const [table] = await query<{ name: string | null }>(url, "select to_regclass('events')::text as name");
  if (!table?.name) return false;
  return (await query(url, "select 1 from events limit 1")).length > 0;
}

async function loadObjects(dataDir: string, db: Backend): Promise<void> {
  const seconds = await runCli([
    "load",
    ...["--count", String(OBJECTS), "--prefix", PREFIX, "--public-every", String(PUBLIC_EVERY)],
    ...["--data-dir", dataDir, ...dbFlags(db)],
  ]);
  record({
    section: "scale",
    name: `d1node load --count ${OBJECTS} (postgres)`,
    value: seconds,
    unit: "s",
    notes: `${Math.round(OBJECTS / seconds)} objects/s; ${loadAverage()}`,
  });
}

async function loadEvents(db: Backend): Promise<void> {
  const url = db.url as string;
  const width = String(Math.max(OBJECTS - 1, 0)).length;
  const line = progressLine();
  const { rowsSeconds, indexSeconds } = await copyEvents(
    url,
    {
      count: EVENTS,
      firstDate: FIRST_DATE,
      spacingMs: SPACING_MS,
      // Spread over the objects, a prime step apart, so that neighbouring entries name different objects.
      pidOf: (i) => `${PREFIX}${String((i * 7919) % Math.max(OBJECTS, 1)).padStart(width, "0")}`,
      nodeId: NODE_ID,
    },
    (rows) => line.update(() => `events copied: ${rows} / ${EVENTS}`),
  );
  line.finish(`events copied: ${EVENTS}`);
  record({
    section: "scale",
    name: `COPY of ${EVENTS} event-log entries`,
    value: EVENTS / rowsSeconds,
    unit: "rows/s",
    notes: `${rowsSeconds.toFixed(0)} s of rows, ${indexSeconds.toFixed(0)} s of index builds and analyze; ${loadAverage()}`,
  });
  const sizes = await query<{ table: string; indexes: string }>(
    url,
    "select pg_table_size('events') as table, pg_indexes_size('events') as indexes",
  );
  const millions = EVENTS / 1e6;
  const table = Number(sizes[0]?.table) / 2 ** 20 / millions;
  const indexes = Number(sizes[0]?.indexes) / 2 ** 20 / millions;
  record({
    section: "scale",
    name: "event log on disk per million entries",
    value: table + indexes,
    unit: "MiB",
    notes: `table ${table.toFixed(0)} MiB, indexes ${indexes.toFixed(0)} MiB per million (${EVENTS} entries)`,
  });
}

/** A restart: its first answer, the warm-up, then first jumps into the warmed lists. */
async function afterRestart(dataDir: string, db: Backend, emptyDir: string, options: SectionOptions) {
  const restarted = await firstAnswer(dataDir, db);
  try {
    const empty = await backend(options.postgres, "d1node_scale");
    try {
      await recordStartUp(`${OBJECTS} objects and ${EVENTS} entries (a restart)`, restarted, emptyDir, empty);
    } finally {
      await empty.dispose();
    }
    const { node } = restarted;
    const seconds = await warmedUp(node);
    record({
      section: "scale",
      name: "list positions warmed in the background after the restart",
      value: seconds,
      unit: "s",
      notes: `RSS then ${(rssOf(node.pid) / 2 ** 20).toFixed(0)} MiB; ${loadAverage()}`,
    });
    const log = (start: number) => `${node.baseUrl}/v2/log?start=${start}&count=${PAGE}`;
    await timeJumps("getLogRecords (administrator)", node.token, log, EVENTS);
    const list = (start: number) => `${node.baseUrl}/v2/object?start=${start}&count=${PAGE}`;
    await timeJumps("listObjects (administrator)", node.token, list, OBJECTS);
    await timeJumps(
      `listObjects (public, reads 1 in ${PUBLIC_EVERY})`,
      undefined,
      list,
      OBJECTS / PUBLIC_EVERY,
    );
  } finally {
    await restarted.node.stop();
  }
}

async function logPaging(options: SectionOptions, node: BenchNode): Promise<void> {
  const log = (query: string) => (start: number) =>
    `${node.baseUrl}/v2/log?start=${start}&count=${PAGE}${query}`;
  await paging(options, node.token, "getLogRecords (administrator)", log(""), EVENTS);
  const from = FIRST_DATE + Math.floor(EVENTS * 0.45) * SPACING_MS;
  const to = from + Math.floor(EVENTS / 10) * SPACING_MS;
  const window = `&fromDate=${new Date(from).toISOString()}&toDate=${new Date(to).toISOString()}`;
  await paging(options, node.token, "getLogRecords, a tenth in a date window", log(window), EVENTS / 10);
  await paging(options, node.token, "getLogRecords, event=create", log("&event=create"), EVENTS / 100);
}

async function listPaging(options: SectionOptions, node: BenchNode): Promise<void> {
  const list = (start: number) => `${node.baseUrl}/v2/object?start=${start}&count=${PAGE}`;
  await paging(options, node.token, "listObjects (administrator)", list, OBJECTS);
  await paging(
    options,
    undefined,
    `listObjects (public, reads 1 in ${PUBLIC_EVERY})`,
    list,
    OBJECTS / PUBLIC_EVERY,
  );
}

/** Cold first page and jumps, then windows at the first, middle and last positions against the first. */
async function paging(
  options: SectionOptions,
  token: string | undefined,
  label: string,
  pageUrl: (start: number) => string,
  approximateTotal: number,
): Promise<void> {
  const client = new KeepAliveClient(token);
  try {
    const first = await client.ok(pageUrl(0));
    const total = Number(/total="(\d+)"/.exec(first.body.toString("utf8", 0, 500))?.[1] ?? approximateTotal);
    const last = Math.max(0, total - PAGE);
    const middle = Math.floor(total / 2 / PAGE) * PAGE;
    const jumpMiddle = (await client.ok(pageUrl(middle))).ms;
    const jumpEnd = (await client.ok(pageUrl(last))).ms;
    record({
      section: "scale",
      name: `${label}: cold first page, jumps to the middle and the end (${total} entries)`,
      value: first.ms,
      unit: "ms first page (includes the total)",
      notes: `jump to start=${middle}: ${jumpMiddle.toFixed(0)} ms, to start=${last}: ${jumpEnd.toFixed(0)} ms`,
    });
    const windowStart = (at: number) => Math.max(0, Math.min(at, total - WINDOW * PAGE));
    const rates: Record<string, number> = {};
    for (const [name, at] of [
      ["first", 0],
      ["middle", middle],
      ["last", total],
    ] as const) {
      const runs: number[] = [];
      for (let r = 0; r < options.runs; r++)
        runs.push(await pagesPerSecond(client, pageUrl, windowStart(at)));
      rates[name] = median(runs);
    }
    const baseline = rates.first as number;
    for (const name of ["middle", "last"] as const) {
      const value = rates[name] as number;
      record({
        section: "scale",
        name: `${label}: ${WINDOW} pages of ${PAGE} at the ${name} position`,
        value,
        unit: "pages/s",
        baseline: { name: `${WINDOW} pages at the first position`, value: baseline, unit: "pages/s" },
        ratio: value / baseline,
        target: "flat (>= 0.8)",
        pass: value / baseline >= 0.8,
        notes: loadAverage(),
      });
    }
  } finally {
    client.close();
  }
}

async function pagesPerSecond(
  client: KeepAliveClient,
  pageUrl: (start: number) => string,
  from: number,
): Promise<number> {
  const started = performance.now();
  for (let i = 0; i < WINDOW; i++) await client.ok(pageUrl(from + i * PAGE));
  return WINDOW / ((performance.now() - started) / 1000);
}

async function query<Row extends object>(url: string, text: string): Promise<Row[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query<Row>(text)).rows;
  } finally {
    await client.end();
  }
}
