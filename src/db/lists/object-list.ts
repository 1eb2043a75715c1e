/** listObjects over the objects table: (dateSysMetadataModified, pid) order, keyset-paged, filters as given. */
import { type Kysely, type SqlBool, sql } from "kysely";
import { countRows } from "../engine/row-counts.ts";
import type { ObjectKey } from "../objects/repository.ts";
import { INFO_COLUMNS, toInfo } from "../objects/rows.ts";
import type { ObjectsTable, Tables } from "../schema.ts";
import type { ObjectListFilter, ObjectRepository, StoredObject } from "../types.ts";
import { listsAllObjects, objectConditions, objectIncludes } from "./filters.ts";
import { everyStep, hopRows, rowNumber } from "./keyset-sql.ts";
import type { KeysetPager, KeysetSource } from "./pager.ts";

type InfoRow = Pick<ObjectsTable, (typeof INFO_COLUMNS)[number]>;

export async function listObjects(
  db: Kysely<Tables>,
  pager: KeysetPager<ObjectKey, StoredObject>,
  filter: ObjectListFilter,
  start: number,
  count: number,
): ReturnType<ObjectRepository["list"]> {
  const { total, rows } = await pager.page(objectListSource(db, filter), start, count);
  return { start, total, items: rows.map(toInfo) };
}

/** The filter's list as the pager reads it. */
export function objectListSource(
  db: Kysely<Tables>,
  filter: ObjectListFilter,
): KeysetSource<InfoRow, ObjectKey, StoredObject> {
  const base = db.selectFrom("objects").where((eb) => eb.and(objectConditions(eb, filter)));
  const { fromDate, toDate, ...undated } = filter;
  return {
    cacheKey: JSON.stringify(filter),
    // A date window is a range of the (date_modified, pid) order: [date, ""] sorts before every object of that date.
    ...(fromDate || toDate
      ? {
          slice: {
            parent: objectListSource(db, undated),
            ...(fromDate ? { from: [fromDate.getTime(), ""] as const } : {}),
            ...(toDate ? { to: [toDate.getTime(), ""] as const } : {}),
          },
        }
      : {}),
    countIsKept: listsAllObjects(filter),
    count: async () => {
      if (listsAllObjects(filter)) return countRows(db, "objects");
      const row = readersOnly(filter)
        ? await db
            .selectFrom(readablePids(db, filter.readableBy).as("readable"))
            .select((eb) => eb.fn.countAll<number>().as("n"))
            .executeTakeFirst()
        : await base.select((eb) => eb.fn.countAll<number>().as("n")).executeTakeFirst();
      return Number(row?.n ?? 0);
    },
    fetch: (after, offset, limit) => {
      let query = base.select([...INFO_COLUMNS]);
      if (after) query = query.where(sql<SqlBool>`(date_modified, pid) > (${after[0]}, ${after[1]})`);
      query = query.orderBy("date_modified").orderBy("pid").limit(limit);
      return (offset > 0 ? query.offset(offset) : query).execute();
    },
    keysEvery: async (after, first, step, hops) => {
      let keys = base.select(["date_modified", "pid", rowNumber(sql`date_modified, pid`)]);
      if (after) keys = keys.where(sql<SqlBool>`(date_modified, pid) > (${after[0]}, ${after[1]})`);
      keys = keys
        .orderBy("date_modified")
        .orderBy("pid")
        .limit(hopRows(first, step, hops));
      const rows = await db
        .selectFrom(keys.as("keys"))
        .select(["date_modified", "pid"])
        .where(everyStep(first, step))
        .orderBy("n")
        .execute();
      return rows.map((row): ObjectKey => [Number(row.date_modified), row.pid]);
    },
    keyOf: (row): ObjectKey => [Number(row.date_modified), row.pid],
    includes: objectIncludes(filter),
  };
}

/** A filter on readers alone (the usual list of a caller who is not an administrator). */
function readersOnly(f: ObjectListFilter): f is ObjectListFilter & { readableBy: string[] } {
  const { readableBy, replicaStatus, ...others } = f;
  return (
    readableBy !== undefined &&
    readableBy.length > 0 &&
    replicaStatus !== false &&
    Object.values(others).every((value) => value === undefined)
  );
}

/**
 * The PIDs the subjects may read, as a UNION of one index range per subject: faster than probing the access
 * rows of every object (docs/decisions.md, "Hot paths").
 */
function readablePids(db: Kysely<Tables>, subjects: string[]) {
  const [first, ...rest] = subjects;
  const one = (subject: string | undefined) =>
    db
      .selectFrom("access_rules")
      .select("pid")
      .where("subject", "=", subject ?? "");
  return rest.reduce((union, subject) => union.union(one(subject)), one(first));
}
