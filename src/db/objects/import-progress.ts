/**
 * `d1node import`'s records per source node (tables import_progress and import_failures, migration 0011-import):
 * the object listing's position (the same shape as the CN's harvest position, so the same window paging serves
 * both), the event log's position, the objects that could not be copied, and the objects the import wrote
 * (import_copies, migration 0021-import-copies).
 */
import type { Kysely } from "kysely";
import { type HarvestProgress, progressColumns, progressFromRow } from "../cn/harvest-progress.ts";
import type { Tables } from "../schema.ts";

export interface ImportFailure {
  pid: string;
  reason: string;
}

export interface ImportProgressStore {
  /** The object listing's position for `source`. */
  load(source: string): Promise<HarvestProgress | undefined>;
  save(source: string, progress: HarvestProgress): Promise<void>;
  /** The newest dateLogged copied from the source's event log. */
  logsTo(source: string): Promise<Date | undefined>;
  saveLogsTo(source: string, to: Date): Promise<void>;
  /** Forget both positions (the next run lists the source from its beginning); failures are kept. */
  reset(source: string): Promise<void>;
  failures(source: string): Promise<ImportFailure[]>;
  recordFailure(source: string, failure: ImportFailure): Promise<void>;
  clearFailure(source: string, pid: string): Promise<void>;
  /** An object written from `source`, with the dateSysMetadataModified written. */
  recordCopy(source: string, pid: string, modified: Date): Promise<void>;
  /** The dateSysMetadataModified last written from `source` for each of `pids` it wrote. */
  copiesOf(source: string, pids: readonly string[]): Promise<Map<string, Date>>;
}

const toDate = (ms: number | null) => (ms === null ? undefined : new Date(Number(ms)));

export function importProgressRepository(db: Kysely<Tables>): ImportProgressStore {
  const row = (source: string) =>
    db.selectFrom("import_progress").selectAll().where("source", "=", source).executeTakeFirst();
  const empty = {
    harvested_to: null,
    window_to: null,
    cursor_from: null,
    cursor_start: 0,
    list_params: "window",
  };

  return {
    async load(source) {
      const found = await row(source);
      if (!found) return undefined;
      return progressFromRow(found);
    },

    async save(source, progress) {
      const values = progressColumns(progress);
      await db
        .insertInto("import_progress")
        .values({ source, logs_to: null, ...values })
        .onConflict((oc) => oc.column("source").doUpdateSet(values))
        .execute();
    },

    async logsTo(source) {
      return toDate((await row(source))?.logs_to ?? null);
    },

    async saveLogsTo(source, to) {
      const values = { logs_to: to.getTime(), updated_at: Date.now() };
      await db
        .insertInto("import_progress")
        .values({ source, ...empty, ...values })
        .onConflict((oc) => oc.column("source").doUpdateSet(values))
        .execute();
    },

    async reset(source) {
      await db.deleteFrom("import_progress").where("source", "=", source).execute();
    },

    async failures(source) {
      const rows = await db
        .selectFrom("import_failures")
        .select(["pid", "reason"])
        .where("source", "=", source)
        .orderBy("pid")
        .execute();
      return rows;
    },

    async recordFailure(source, { pid, reason }) {
      const values = { reason, failed_at: Date.now() };
      await db
        .insertInto("import_failures")
        .values({ source, pid, ...values })
        .onConflict((oc) => oc.columns(["source", "pid"]).doUpdateSet(values))
        .execute();
    },

    async clearFailure(source, pid) {
      await db.deleteFrom("import_failures").where("source", "=", source).where("pid", "=", pid).execute();
    },

    async recordCopy(source, pid, modified) {
      const values = { date_modified: modified.getTime() };
      await db
        .insertInto("import_copies")
        .values({ source, pid, ...values })
        .onConflict((oc) => oc.columns(["source", "pid"]).doUpdateSet(values))
        .execute();
    },

    async copiesOf(source, pids) {
      if (pids.length === 0) return new Map();
      const rows = await db
        .selectFrom("import_copies")
        .select(["pid", "date_modified"])
        .where("source", "=", source)
        .where("pid", "in", [...pids])
        .execute();
      return new Map(rows.map((row) => [row.pid, new Date(Number(row.date_modified))]));
    },
  };
}
