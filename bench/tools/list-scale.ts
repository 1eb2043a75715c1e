/**
 * A quick check of list paging at scale (not a test): bulk-loads N objects (default 1,000,000) into a fresh SQLite
 * file, or into PostgreSQL with `--pg <admin url>`, then times sequential start/count paging at the beginning,
 * middle and end, cold jumps, and single gets.
 *   node --import tsx bench/tools/list-scale.ts [N] [--pg postgres://postgres@127.0.0.1:5432/postgres]
 */
import { randomBytes } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import pg from "pg";
import { bulkLoadObjects } from "../../src/db/index.ts";
import type { Database, ObjectListFilter, StoredObject } from "../../src/db/types.ts";
import { openNodeDatabase } from "../../src/node/open-database.ts";

const args = process.argv.slice(2);
const pgAt = args.indexOf("--pg");
const adminUrl = pgAt >= 0 ? args[pgAt + 1] : undefined;
const total = Number(args.find((a) => /^\d+$/.test(a)) ?? 1_000_000);

function* objects(): Iterable<StoredObject> {
  const base = Date.UTC(2025, 0, 1);
  for (let i = 0; i < total; i++) {
    const date = new Date(base + Math.floor(i / 2) * 1000);
    yield {
      contentKey: "a".repeat(64),
      isReplica: false,
      digests: { size: 1024, md5: "m".repeat(32), sha1: "s".repeat(40), sha256: "a".repeat(64) },
      sysmeta: {
        serialVersion: 1,
        identifier: `urn:uuid:bench-${String(i).padStart(8, "0")}`,
        formatId: "text/csv",
        size: 1024,
        checksum: { algorithm: "MD5", value: "m".repeat(32) },
        submitter: "CN=bench,DC=dataone,DC=org",
        rightsHolder: "CN=bench,DC=dataone,DC=org",
        accessPolicy: [{ subjects: ["public"], permissions: ["read"] }],
        archived: false,
        dateUploaded: date,
        dateSysMetadataModified: date,
        originMemberNode: "urn:node:BENCH",
        authoritativeMemberNode: "urn:node:BENCH",
        replicas: [],
      },
    };
  }
}

const seconds = (from: number) => (performance.now() - from) / 1000;

async function sequential(
  db: Database,
  filter: ObjectListFilter,
  from: number,
  pages: number,
  count: number,
) {
  const started = performance.now();
  let first = 0;
  for (let i = 0; i < pages; i++) {
    const pageStarted = performance.now();
    const page = await db.objects.list(filter, from + i * count, count);
    if (i === 0) first = performance.now() - pageStarted;
    if (page.items.length !== Math.min(count, total - from - i * count)) throw new Error("short page");
  }
  const rate = pages / seconds(started);
  console.log(
    `  ${JSON.stringify(filter)} start ${from}, ${pages} pages of ${count}: ${rate.toFixed(0)} pages/s (first ${first.toFixed(1)} ms)`,
  );
}

async function timed(label: string, work: () => Promise<unknown>) {
  const started = performance.now();
  await work();
  console.log(`  ${label}: ${(performance.now() - started).toFixed(1)} ms`);
}

async function main() {
  let cleanup: () => Promise<void>;
  let db: Database;
  if (adminUrl) {
    const name = `d1node_bench_${randomBytes(4).toString("hex")}`;
    const admin = async (text: string) => {
      const client = new pg.Client({ connectionString: adminUrl });
      await client.connect();
      await client.query(text).finally(() => client.end());
    };
    await admin(`create database ${name}`);
    const url = new URL(adminUrl);
    url.pathname = `/${name}`;
    db = await openNodeDatabase({ url: url.toString() });
    cleanup = () => admin(`drop database ${name} with (force)`);
  } else {
    const dir = await mkdtemp(path.join(tmpdir(), "d1node-bench-"));
    db = await openNodeDatabase({ sqlitePath: path.join(dir, "bench.sqlite") });
    cleanup = () => rm(dir, { recursive: true, force: true });
  }
  try {
    console.log(`${db.dialect}, ${total} objects`);
    const started = performance.now();
    await bulkLoadObjects(db, objects());
    const loadSeconds = seconds(started);
    console.log(`  bulk load: ${loadSeconds.toFixed(1)} s (${Math.round(total / loadSeconds)} objects/s)`);

    await timed("total of an unfiltered list (count, then cached)", () => db.objects.list({}, 0, 1));
    await sequential(db, {}, 0, 100, 1000);
    await timed("cold jump to the middle", () => db.objects.list({}, total / 2, 1000));
    await sequential(db, {}, total / 2, 100, 1000);
    await timed("cold jump near the end", () => db.objects.list({}, total - 100_000, 1000));
    await sequential(db, {}, total - 100_000, 100, 1000);
    const passStarted = performance.now();
    let slowest = 0;
    for (let start = 0; start < total; start += 1000) {
      const pageStarted = performance.now();
      await db.objects.list({ replicaStatus: false }, start, 1000);
      slowest = Math.max(slowest, performance.now() - pageStarted);
    }
    const pages = Math.ceil(total / 1000);
    console.log(
      `  full pass, ${pages} pages of 1000 (replicaStatus=false): ${(pages / seconds(passStarted)).toFixed(0)} pages/s, slowest ${slowest.toFixed(1)} ms`,
    );
    await timed("warm jump back to 123,456", () => db.objects.list({}, 123_456, 1000));
    await sequential(db, {}, total / 4, 100, 100);
    const readable = { readableBy: ["public", "CN=someone"] };
    await timed("readableBy total", () => db.objects.list(readable, 0, 1));
    await sequential(db, readable, 0, 100, 1000);
    await timed("readableBy cold jump near the end", () => db.objects.list(readable, total - 100_000, 1000));
    await sequential(db, readable, total - 100_000, 100, 1000);
    // Sequential pages with objects arriving at the end between them.
    let arriving = 0;
    const during = performance.now();
    for (let i = 0; i < 100; i++) {
      await db.objects.list({}, total - 200_000 + i * 1000, 1000);
      const [sample] = objects();
      if (!sample) break;
      const pid = `urn:uuid:arriving-${arriving++}`;
      await db.objects.insert({
        ...sample,
        sysmeta: { ...sample.sysmeta, identifier: pid, dateSysMetadataModified: new Date() },
      });
    }
    console.log(`  100 pages of 1000, an insert after each: ${(100 / seconds(during)).toFixed(0)} pages/s`);

    const gets = 100_000;
    const getsStarted = performance.now();
    for (let i = 0; i < gets; i++) {
      const pid = `urn:uuid:bench-${String((i * 7919) % total).padStart(8, "0")}`;
      if (!(await db.objects.get(pid))) throw new Error(`missing ${pid}`);
    }
    const perGet = (performance.now() - getsStarted) / gets;
    console.log(`  get(): ${(perGet * 1000).toFixed(1)} us each (${Math.round(1000 / perGet)}/s)`);
  } finally {
    await db.close();
    await cleanup();
  }
}

await main();
