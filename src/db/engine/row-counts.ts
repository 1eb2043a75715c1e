/**
 * The rows of `events` and `objects`, as the triggers of migration 0015 keep them (on SQLite, the writers of
 * `events` count their inserts themselves: migration 0017): the `total` of an unfiltered
 * getLogRecords or listObjects without counting the table. Exact: a count reads the committed deltas of the
 * same snapshot as the statement that reads it.
 */
import { type Kysely, sql } from "kysely";
import type { RowCountsTable, Tables } from "../schema.ts";
import { FixedSql } from "./statement-texts.ts";

/** PostgreSQL: past this many delta rows for a table, a read folds them into one. */
const FOLD_FROM = 200;

export async function countRows(db: Kysely<Tables>, name: RowCountsTable["name"]): Promise<number> {
  const row = await db
    .selectFrom("row_counts")
    .select((eb) => [eb.fn.sum<string | number>("n").as("n"), eb.fn.countAll<string | number>().as("deltas")])
    .where("name", "=", name)
    .executeTakeFirst();
  if (Number(row?.deltas ?? 0) > FOLD_FROM) await fold(db, name);
  return Number(row?.n ?? 0);
}

/**
 * The deltas become one row with their sum, in one statement. Deltas committed meanwhile are not in its snapshot
 * and stay; a concurrent fold waits for this one's deleted rows, then skips them: the sum never changes.
 */
async function fold(db: Kysely<Tables>, name: RowCountsTable["name"]): Promise<void> {
  await sql`with gone as (delete from row_counts where name = ${name} returning n)
    insert into row_counts (name, n) select ${name}, coalesce(sum(n), 0) from gone`.execute(db);
}

const ADD_TO_COUNT = new FixedSql("update row_counts set n = n + ? where name = ?");

/** SQLite, where the writers of a table count for it (migration 0017): `added` more rows of `name`. */
export async function addToCount(
  db: Kysely<Tables>,
  name: RowCountsTable["name"],
  added: number,
): Promise<void> {
  if (added !== 0) await ADD_TO_COUNT.run(db, [added, name]);
}
