/**
 * The harvest position of each Member Node (table harvest_progress, migration 0006-harvest), written after every
 * page so that a restarted Coordinating Node resumes where it stopped.
 */
import type { Kysely } from "kysely";
import type { Tables } from "./schema.ts";

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

export function harvestProgressRepository(db: Kysely<Tables>): HarvestProgressStore {
  return {
    async load(nodeId) {
      const row = await db
        .selectFrom("harvest_progress")
        .selectAll()
        .where("node_id", "=", nodeId)
        .executeTakeFirst();
      if (!row) return undefined;
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
    },
    async save(nodeId, progress) {
      const values = {
        harvested_to: toMs(progress.harvestedTo),
        window_to: toMs(progress.window?.to),
        cursor_from: toMs(progress.window?.cursorFrom),
        cursor_start: progress.window?.cursorStart ?? 0,
        list_params: progress.listParams,
        updated_at: Date.now(),
      };
      await db
        .insertInto("harvest_progress")
        .values({ node_id: nodeId, ...values })
        .onConflict((oc) => oc.column("node_id").doUpdateSet(values))
        .execute();
    },
  };
}
