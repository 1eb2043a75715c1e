/**
 * The values of rewritten documents, read once for every held column: after a write, each column rechecks the
 * same documents, and one query for all their fields replaces a query per column. A read belongs to the change
 * it was made at; a column rechecking at another change (or other documents) reads anew.
 */
import type { IndexChangeLog } from "../../db/index-changes.ts";
import type { SearchEngineDb } from "../store/index.ts";
import type { FieldValueRow } from "../store/memory-reads.ts";

export type ValueRow = FieldValueRow;

export class ChangedValues {
  private last: { key: string; rows: Promise<Map<string, ValueRow[]>> } | undefined;

  constructor(
    private readonly db: SearchEngineDb,
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
    for (const row of await this.db.search.valuesOf(pids, fields)) {
      const list = out.get(row.field);
      if (list) list.push(row);
      else out.set(row.field, [row]);
    }
    return out;
  }
}
