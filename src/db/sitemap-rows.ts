/**
 * The objects a sitemap lists: public (an access row for "public"), current (not obsoleted), not archived, held
 * as this node's own (not a replica), of the given formats, in pid order. Read by keyset on pid, never whole.
 */
import { sql } from "kysely";
import type { Database } from "./types.ts";

export interface SitemapRow {
  pid: string;
  /** dateSysMetadataModified, milliseconds. */
  modified: number;
}

/** A run of rows: how many, the last pid, the latest modification. */
export interface SitemapSpan {
  count: number;
  last?: string;
  modified?: number;
}

function listed(db: Database, formatIds: readonly string[], after: string | undefined) {
  return (
    db.kysely
      .selectFrom("objects")
      // As written in migration 0029's partial index objects_sitemap (constants, not parameters), so both
      // databases use it.
      .where(sql<boolean>`obsoleted_by is null and archived = 0 and is_replica = 0`)
      .where("format_id", "in", formatIds.length ? [...formatIds] : [""])
      .where((eb) =>
        eb.exists(
          eb
            .selectFrom("access_rules")
            .select("access_rules.pid")
            .whereRef("access_rules.pid", "=", "objects.pid")
            .where("access_rules.subject", "=", "public")
            // The position again on access_rules' side: PostgreSQL merge-joins the two in pid order and, without
            // it, reads the access rows from the first pid up to the position (a file deep in the order, all).
            .$if(after !== undefined, (q) => q.where("access_rules.pid", ">", after as string)),
        ),
      )
      .$if(after !== undefined, (q) => q.where("pid", ">", after as string))
  );
}

/** Up to `limit` rows after `after`, in pid order. */
export async function sitemapRows(
  db: Database,
  formatIds: readonly string[],
  after: string | undefined,
  limit: number,
): Promise<SitemapRow[]> {
  const rows = await listed(db, formatIds, after)
    .select(["pid", "date_modified"])
    .orderBy("pid")
    .limit(limit)
    .execute();
  return rows.map((r) => ({ pid: r.pid, modified: Number(r.date_modified) }));
}

/** The next `size` rows after `after`, summed up in one query without sending them. */
export async function sitemapSpan(
  db: Database,
  formatIds: readonly string[],
  after: string | undefined,
  size: number,
): Promise<SitemapSpan> {
  const run = listed(db, formatIds, after)
    .select(["pid", "date_modified"])
    .orderBy("pid")
    .limit(size)
    .as("run");
  const row = await db.kysely
    .selectFrom(run)
    .select([
      sql<number | string>`count(*)`.as("count"),
      sql<string | null>`max(run.pid)`.as("last"),
      sql<number | string | null>`max(run.date_modified)`.as("modified"),
    ])
    .executeTakeFirst();
  const count = Number(row?.count ?? 0);
  return {
    count,
    ...(row?.last != null ? { last: row.last } : {}),
    ...(row?.modified != null ? { modified: Number(row.modified) } : {}),
  };
}
