/**
 * Statements written once (src/db/engine/statement-texts.ts) against the same statements built by Kysely, in one run: a
 * create's small writes (a one-row event insert, a blob intent added and removed, a counter update, an identifier
 * read), each inside a transaction as the write core runs them, alternating rounds so the machine's load falls on
 * both alike. Prints µs a statement for each path and their ratio.
 *   node --import tsx bench/tools/fixed-sql-ratio.ts [ROUNDS] [--pg postgres://postgres@127.0.0.1:5432/postgres]
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import type { Kysely } from "kysely";
import pg from "pg";
import { FixedSql, insertRows } from "../../src/db/engine/statement-texts.ts";
import { EVENT_COLUMNS } from "../../src/db/events/event-rows.ts";
import type { Tables } from "../../src/db/schema.ts";
import { openNodeDatabase } from "../../src/node/open-database.ts";

const args = process.argv.slice(2);
const pgAt = args.indexOf("--pg");
const adminUrl = pgAt >= 0 ? args[pgAt + 1] : undefined;
const rounds = Number(args.find((a) => /^\d+$/.test(a)) ?? 10);
const PER_ROUND = 500;
const STATEMENTS = 5;

const ADD_INTENT = new FixedSql(
  "insert into blob_intents (content_key) values (?) on conflict (content_key) do nothing",
);
const REMOVE_INTENT = new FixedSql("delete from blob_intents where content_key = ?");
const ADD_TO_COUNT = new FixedSql("update row_counts set n = n + ? where name = ?");
const IDENTIFIER_IN_USE = new FixedSql("select id from identifiers where id = ?");

function eventRow(i: number) {
  return {
    pid: `bench-${i}`,
    ip: "127.0.0.1",
    user_agent: "bench",
    subject: "public",
    event: "create",
    date_logged: Date.now(),
    node_id: "urn:node:BENCH",
    source_node: null,
    source_entry: null,
  };
}

async function fixed(db: Kysely<Tables>, i: number): Promise<void> {
  await db.transaction().execute(async (tx) => {
    await IDENTIFIER_IN_USE.first(tx, [`bench-${i}`]);
    await insertRows(tx, "events", EVENT_COLUMNS, [eventRow(i)]);
    await ADD_INTENT.run(tx, [`key-${i}`]);
    await REMOVE_INTENT.run(tx, [`key-${i}`]);
    await ADD_TO_COUNT.run(tx, [1, "events"]);
  });
}

async function built(db: Kysely<Tables>, i: number): Promise<void> {
  await db.transaction().execute(async (tx) => {
    await tx.selectFrom("identifiers").select("id").where("id", "=", `bench-${i}`).executeTakeFirst();
    await tx.insertInto("events").values(eventRow(i)).execute();
    await tx
      .insertInto("blob_intents")
      .values({ content_key: `key-${i}` })
      .onConflict((oc) => oc.column("content_key").doNothing())
      .execute();
    await tx.deleteFrom("blob_intents").where("content_key", "=", `key-${i}`).execute();
    await tx
      .updateTable("row_counts")
      .set((eb) => ({ n: eb("n", "+", 1) }))
      .where("name", "=", "events")
      .execute();
  });
}

async function main(): Promise<void> {
  const dir = await mkdtemp(path.join(tmpdir(), "fixed-sql-"));
  let dropName: string | undefined;
  let url: string | undefined;
  if (adminUrl) {
    dropName = `d1node_bench_fixed_${process.pid}`;
    const admin = new pg.Client({ connectionString: adminUrl });
    await admin.connect();
    await admin.query(`create database ${dropName}`);
    await admin.end();
    const target = new URL(adminUrl);
    target.pathname = `/${dropName}`;
    url = target.toString();
  }
  const database = await openNodeDatabase(url ? { url } : { sqlitePath: path.join(dir, "bench.sqlite") });
  const db = database.kysely;
  const timings = { fixed: [] as number[], built: [] as number[] };
  let i = 0;
  try {
    for (let warm = 0; warm < PER_ROUND; warm++) {
      await fixed(db, i++);
      await built(db, i++);
    }
    for (let round = 0; round < rounds; round++) {
      for (const [name, run] of [
        ["fixed", fixed],
        ["built", built],
      ] as const) {
        const started = process.cpuUsage();
        for (let n = 0; n < PER_ROUND; n++) await run(db, i++);
        const used = process.cpuUsage(started);
        timings[name].push((used.user + used.system) / (PER_ROUND * STATEMENTS));
      }
    }
  } finally {
    await database.close();
    await rm(dir, { recursive: true, force: true });
    if (adminUrl && dropName) {
      const admin = new pg.Client({ connectionString: adminUrl });
      await admin.connect();
      await admin.query(`drop database ${dropName}`);
      await admin.end();
    }
  }
  const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? 0;
  const f = median(timings.fixed);
  const b = median(timings.built);
  console.log(
    `${adminUrl ? "postgres" : "sqlite"}: node CPU a statement, fixed ${f.toFixed(1)} µs, Kysely-built ${b.toFixed(1)} µs, ratio ${(b / f).toFixed(2)} (${rounds} rounds of ${PER_ROUND} transactions of ${STATEMENTS} statements)`,
  );
}

await main();
