/**
 * The values of rewritten documents, read once for every held column: after a write, each column rechecks the
 * same documents, and one query for all their fields replaces a query per column. A read belongs to the change
 * it was made at; a column rechecking at another change (or other documents) reads anew.
 */
import { type Kysely, sql } from "kysely";
import type { IndexChangeLog } from "../../db/index-changes.ts";
import type { Tables } from "../../db/schema.ts";
import type { SqlDialect } from "../query-sql.ts";

/** PIDs per query. */
const BATCH = 500;

export interface ValueRow {
  pid: string;
  field: string;
  value: string;
  num: number | string | null;
}

export class ChangedValues {
  private last: { key: string; rows: Promise<Map<string, ValueRow[]>> } | undefined;

  constructor(
    private readonly db: Kysely<Tables>,
    private readonly dialect: SqlDialect,
    private readonly log: IndexChangeLog,
    private readonly heldFields: () => string[],
  ) {}

  /** The rows of `field` for these documents, as they are now. */
  async of(pids: string[], field: string): Promise<ValueRow[]> {
    const key = `${this.log.seq}\u0000${pids.join("\u0000")}`;
    if (this.last?.key !== key) {
      const fields = [...new Set([...this.heldFields(), field])];
      this.last = { key, rows: this.read(pids, fields) };
      this.last.rows.catch(() => {
        this.last = undefined;
      });
    }
    return (await this.last.rows).get(field) ?? [];
  }

  private async read(pids: string[], fields: string[]): Promise<Map<string, ValueRow[]>> {
    const out = new Map<string, ValueRow[]>();
    // By the (pid, field) index: SQLite, without statistics, would rather scan the field's every value.
    const table =
      this.dialect === "sqlite" ? sql`search_values indexed by search_values_pid` : sql`search_values`;
    for (let i = 0; i < pids.length; i += BATCH) {
      const rows = await sql<ValueRow>`select pid, field, value, num from ${table}
        where pid in (${sql.join(pids.slice(i, i + BATCH))}) and field in (${sql.join(fields)})`.execute(
        this.db,
      );
      for (const row of rows.rows) {
        const list = out.get(row.field);
        if (list) list.push(row);
        else out.set(row.field, [row]);
      }
    }
    return out;
  }
}
