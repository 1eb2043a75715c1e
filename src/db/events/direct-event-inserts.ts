/** The event log's batches on SQLite, written on the database handle itself (see events.ts, insertNow). */
import type SQLite from "better-sqlite3";
import type { NewRow } from "./event-rows.ts";

/** Rows per multi-row INSERT of an event batch (7 values a row: far below SQLite's 32766 parameters). */
const EVENT_ROWS_PER_STATEMENT = 50;

/**
 * Event batches written on the handle itself, in a transaction of their own; not while Kysely has one open.
 * Multi-row INSERTs of up to 50 rows, one statement prepared per row count (one run() per row costs more:
 * docs/decisions.md, "Hot paths").
 */
export function directEventInserts(handle: SQLite.Database): (rows: readonly NewRow[]) => boolean {
  const statements = new Map<number, SQLite.Statement>();
  const insertOf = (count: number) => {
    let statement = statements.get(count);
    if (!statement) {
      const values = Array.from({ length: count }, () => "(?, ?, ?, ?, ?, ?, ?)").join(", ");
      statement = handle.prepare(
        `insert into events (pid, ip, user_agent, subject, event, date_logged, node_id) values ${values}`,
      );
      statements.set(count, statement);
    }
    return statement;
  };
  // The writers of events keep its row count (migration 0017): one update per batch.
  const count = handle.prepare("update row_counts set n = n + ? where name = 'events'");
  const insertAll = handle.transaction((rows: readonly NewRow[]) => {
    for (let i = 0; i < rows.length; i += EVENT_ROWS_PER_STATEMENT) {
      const chunk = rows.slice(i, i + EVENT_ROWS_PER_STATEMENT);
      const values: unknown[] = [];
      for (const r of chunk)
        values.push(r.pid, r.ip, r.user_agent, r.subject, r.event, r.date_logged, r.node_id);
      insertOf(chunk.length).run(values);
    }
    count.run(rows.length);
  });
  return (rows) => {
    if (handle.inTransaction) return false;
    insertAll(rows);
    return true;
  };
}
