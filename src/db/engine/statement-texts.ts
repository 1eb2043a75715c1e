/**
 * Statements of the hot write paths (a create runs about fifteen) as SQL text written once, past Kysely's
 * query building (docs/decisions.md, "Hot paths"). They run through `db.executeQuery`, so on the connection
 * of the transaction `db` may be; on SQLite the handle prepares each distinct text once (sqlite-handle.ts,
 * `preparedOnce`). Texts use `?` placeholders; PostgreSQL gets `$1`, `$2`, ... (the texts hold no other
 * question mark).
 */
import { CompiledQuery, type Kysely, PostgresAdapter, type QueryResult } from "kysely";
import type { Tables } from "../schema.ts";
import { prepareByName } from "./prepared-statements.ts";

/** `?` placeholders numbered for PostgreSQL. */
function numbered(text: string): string {
  let n = 0;
  return text.replace(/\?/g, () => `$${++n}`);
}

export function onPostgres(db: Kysely<Tables>): boolean {
  return db.getExecutor().adapter instanceof PostgresAdapter;
}

/** One statement's text, in each dialect's placeholders. */
export class FixedSql {
  readonly #sqlite: string;
  readonly #postgres: string;

  /** `prepared`: PostgreSQL connections prepare the text once and run it by name (prepared-statements.ts). */
  constructor(text: string, options: { prepared?: boolean } = {}) {
    this.#sqlite = text;
    this.#postgres = numbered(text);
    if (options.prepared) prepareByName(this.#postgres);
  }

  run<R = unknown>(db: Kysely<Tables>, parameters: readonly unknown[]): Promise<QueryResult<R>> {
    const text = onPostgres(db) ? this.#postgres : this.#sqlite;
    return db.executeQuery<R>(CompiledQuery.raw(text, parameters as unknown[]));
  }

  /** The first row, if any. */
  async first<R>(db: Kysely<Tables>, parameters: readonly unknown[]): Promise<R | undefined> {
    return (await this.run<R>(db, parameters)).rows[0];
  }
}

/** Texts made for a shape (table, columns, row or list count): a few shapes each, so the cache stays small. */
const shaped = new Map<string, FixedSql>();
const SHAPES_KEPT = 500;

/** The statement of `key`, its text made by `build` the first time. */
export function shapedSql(key: string, build: () => string): FixedSql {
  let statement = shaped.get(key);
  if (!statement) {
    statement = new FixedSql(build());
    if (shaped.size < SHAPES_KEPT) shaped.set(key, statement);
  }
  return statement;
}

/** `head` followed by ` (?, ?, ...)` with `count` placeholders: `where pid in` and the like. */
export function listSql(head: string, count: number): FixedSql {
  return shapedSql(
    `${head}\u0000${count}`,
    () => `${head} (${new Array<string>(count).fill("?").join(", ")})`,
  );
}

/**
 * Insert `rows` (every row with the same `columns`, none undefined) into `table`, with `suffix` (e.g. an ON
 * CONFLICT clause) after the values. The caller keeps the count under both dialects' bound-parameter limits.
 */
export async function insertRows<Row extends object>(
  db: Kysely<Tables>,
  table: string,
  columns: readonly (keyof Row & string)[],
  rows: readonly Row[],
  suffix = "",
): Promise<void> {
  if (rows.length === 0) return;
  const key = `${table}\u0000${columns.join(",")}\u0000${rows.length}\u0000${suffix}`;
  const statement = shapedSql(key, () => {
    const tuple = `(${columns.map(() => "?").join(", ")})`;
    const tuples = new Array<string>(rows.length).fill(tuple).join(", ");
    return `insert into ${table} (${columns.join(", ")}) values ${tuples}${suffix}`;
  });
  const parameters: unknown[] = [];
  for (const row of rows) for (const column of columns) parameters.push(row[column]);
  await statement.run(db, parameters);
}
