/**
 * The harvest position of each Member Node (table harvest_progress, migration 0006-harvest), written after every
 * page so that a restarted Coordinating Node resumes where it stopped.
 */
import type { Kysely } from "kysely";
import type { Tables } from "../schema.ts";

/**
 * The listObjects parameters a node accepts: all of fromDate, toDate, start and count; all but toDate; or
 * "The node MUST at least support the fromDate filter" (document 1, MNRead.listObjects): fromDate alone.
 */
export type ListParams = "window" | "no-toDate" | "fromDate";
export const LIST_PARAMS: readonly ListParams[] = ["window", "no-toDate", "fromDate"];

export interface OpenWindow {
  /** Exclusive end of the window (dateSysMetadataModified < to). */
  to: Date;
  /** fromDate of the next page; undefined for a first harvest's opening pages. */
  cursorFrom: Date | undefined;
  /** start of the next page (objects already seen at cursorFrom). */
  cursorStart: number;
}

export interface HarvestProgress {
  /** Everything the node lists as modified before this time is synchronized. */
  harvestedTo: Date | undefined;
  window: OpenWindow | undefined;
  listParams: ListParams;
}

export interface HarvestProgressStore {
  load(nodeId: string): Promise<HarvestProgress | undefined>;
  save(nodeId: string, progress: HarvestProgress): Promise<void>;
}

const toDate = (ms: number | null) => (ms === null ? undefined : new Date(Number(ms)));
const toMs = (date: Date | undefined) => (date === undefined ? null : date.getTime());

/** The position columns harvest_progress and import_progress share. */
interface ProgressColumns {
  harvested_to: number | null;
  window_to: number | null;
  cursor_from: number | null;
  cursor_start: number;
  list_params: string;
}

/** A stored row's position (an unknown list_params reads as "window"). */
export function progressFromRow(row: ProgressColumns): HarvestProgress {
  const windowTo = toDate(row.window_to);
  return {
    harvestedTo: toDate(row.harvested_to),
    window: windowTo
      ? { to: windowTo, cursorFrom: toDate(row.cursor_from), cursorStart: Number(row.cursor_start) }
      : undefined,
    listParams: LIST_PARAMS.includes(row.list_params as ListParams)
      ? (row.list_params as ListParams)
      : "window",
  };
}

/** The columns that store a position, stamped with the time of writing. */
export function progressColumns(progress: HarvestProgress): ProgressColumns & { updated_at: number } {
  return {
    harvested_to: toMs(progress.harvestedTo),
    window_to: toMs(progress.window?.to),
    cursor_from: toMs(progress.window?.cursorFrom),
    cursor_start: progress.window?.cursorStart ?? 0,
    list_params: progress.listParams,
    updated_at: Date.now(),
  };
}

export function harvestProgressRepository(db: Kysely<Tables>): HarvestProgressStore {
  return {
    async load(nodeId) {
      const row = await db
        .selectFrom("harvest_progress")
        .selectAll()
        .where("node_id", "=", nodeId)
        .executeTakeFirst();
      if (!row) return undefined;
      return progressFromRow(row);
    },
    async save(nodeId, progress) {
      const values = progressColumns(progress);
      await db
        .insertInto("harvest_progress")
        .values({ node_id: nodeId, ...values })
        .onConflict((oc) => oc.column("node_id").doUpdateSet(values))
        .execute();
    },
  };
}
