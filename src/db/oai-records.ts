/**
 * The records an OAI-PMH repository lists (src/oai/): this node's own public objects (archived ones as deleted
 * records) and the tombstones of removed public objects, in (datestamp, pid) order, keyset-paged. An object's
 * datestamp is its dateSysMetadataModified, a tombstone's the time of removal (both milliseconds).
 */
import { type Expression, type Kysely, type SqlBool, sql } from "kysely";
import type { Tables } from "./schema.ts";
import type { StoredObject } from "./types.ts";

export interface OaiRecordRow {
  pid: string;
  formatId: string;
  /** Milliseconds since the epoch. */
  datestamp: number;
  deleted: boolean;
}

/** A condition on formatId: one of these ids, or none of them. */
export type FormatCondition = { in: readonly string[] } | { notIn: readonly string[] };

export interface OaiListFilter {
  /** datestamp >= from (ms). */
  from?: number;
  /** datestamp < until (ms). */
  until: number;
  /** Every condition holds. */
  formats: readonly FormatCondition[];
  /** Only the map with this PID and the objects it names (tombstones are in no package). */
  packageOf?: string;
  /** Only maps and the objects a map names. */
  inAnyPackage?: boolean;
}

export interface OaiRecords {
  /** Up to `limit` records after `after` in (datestamp, pid) order. */
  page(
    filter: OaiListFilter,
    after: readonly [number, string] | undefined,
    limit: number,
  ): Promise<OaiRecordRow[]>;
  count(filter: OaiListFilter): Promise<number>;
  /** One record: a listed object, else a tombstone. */
  get(pid: string): Promise<OaiRecordRow | undefined>;
  /** The lowest datestamp of any record. */
  earliest(): Promise<number | undefined>;
  /** Per PID, the public resource maps that hold it (a map holds itself). */
  packagesOf(pids: readonly string[]): Promise<Map<string, string[]>>;
  /** Public resource maps with relations, in PID order after `after`. */
  maps(after: string | undefined, limit: number): Promise<string[]>;
}

type Db = Kysely<Tables>;

/** Listed objects: this node's own (not replicas), readable by anyone. */
const listed = (alias: string) =>
  sql<SqlBool>`${sql.ref(`${alias}.is_replica`)} = 0 and exists (select 1 from access_rules a where a.pid = ${sql.ref(`${alias}.pid`)} and a.subject = 'public')`;

function formatConditions(column: string, formats: readonly FormatCondition[]): Expression<SqlBool>[] {
  return formats.map((condition) => {
    if ("in" in condition) {
      return condition.in.length === 0
        ? sql<SqlBool>`1 = 0`
        : sql<SqlBool>`${sql.ref(column)} in (${sql.join(condition.in)})`;
    }
    return condition.notIn.length === 0
      ? sql<SqlBool>`1 = 1`
      : sql<SqlBool>`${sql.ref(column)} not in (${sql.join(condition.notIn)})`;
  });
}

function objectWhere(filter: OaiListFilter, after?: readonly [number, string]): Expression<SqlBool> {
  const parts: Expression<SqlBool>[] = [listed("o"), sql<SqlBool>`o.date_modified < ${filter.until}`];
  if (filter.from !== undefined) parts.push(sql<SqlBool>`o.date_modified >= ${filter.from}`);
  if (after) parts.push(sql<SqlBool>`(o.date_modified, o.pid) > (${after[0]}, ${after[1]})`);
  parts.push(...formatConditions("o.format_id", filter.formats));
  if (filter.packageOf !== undefined) {
    parts.push(
      sql<SqlBool>`(o.pid = ${filter.packageOf} or o.pid in (select r.subject from search_relations r where r.map_pid = ${filter.packageOf}))`,
    );
  }
  if (filter.inAnyPackage) {
    parts.push(
      sql<SqlBool>`(exists (select 1 from search_relations r where r.subject = o.pid) or exists (select 1 from search_relations r where r.map_pid = o.pid))`,
    );
  }
  return sql<SqlBool>`${sql.join(parts, sql` and `)}`;
}

function tombstoneWhere(filter: OaiListFilter, after?: readonly [number, string]): Expression<SqlBool> {
  const parts: Expression<SqlBool>[] = [
    sql<SqlBool>`not exists (select 1 from objects x where x.pid = t.pid)`,
    sql<SqlBool>`t.date_deleted < ${filter.until}`,
  ];
  if (filter.from !== undefined) parts.push(sql<SqlBool>`t.date_deleted >= ${filter.from}`);
  if (after) parts.push(sql<SqlBool>`(t.date_deleted, t.pid) > (${after[0]}, ${after[1]})`);
  parts.push(...formatConditions("t.format_id", filter.formats));
  return sql<SqlBool>`${sql.join(parts, sql` and `)}`;
}

interface RawRow {
  pid: string;
  format_id: string;
  stamp: number | string;
  deleted: number | string;
}

const toRecord = (row: RawRow): OaiRecordRow => ({
  pid: row.pid,
  formatId: row.format_id,
  datestamp: Number(row.stamp),
  deleted: Number(row.deleted) === 1,
});

const byKey = (a: OaiRecordRow, b: OaiRecordRow) =>
  a.datestamp - b.datestamp || (a.pid < b.pid ? -1 : a.pid > b.pid ? 1 : 0);

export function oaiRecords(db: Db): OaiRecords {
  return {
    async page(filter, after, limit) {
      const objects =
        await sql<RawRow>`select o.pid, o.format_id, o.date_modified as stamp, o.archived as deleted
        from objects o where ${objectWhere(filter, after)}
        order by o.date_modified, o.pid limit ${limit}`.execute(db);
      const tombstones =
        filter.packageOf === undefined && !filter.inAnyPackage
          ? (
              await sql<RawRow>`select t.pid, t.format_id, t.date_deleted as stamp, 1 as deleted
                from oai_tombstones t where ${tombstoneWhere(filter, after)}
                order by t.date_deleted, t.pid limit ${limit}`.execute(db)
            ).rows
          : [];
      // Both lists are in key order: the first `limit` of their merge are the page.
      return [...objects.rows, ...tombstones].map(toRecord).sort(byKey).slice(0, limit);
    },

    async count(filter) {
      const objects = await sql<{ n: number | string }>`select count(*) as n from objects o
        where ${objectWhere(filter)}`.execute(db);
      let n = Number(objects.rows[0]?.n ?? 0);
      if (filter.packageOf === undefined && !filter.inAnyPackage) {
        const tombstones = await sql<{ n: number | string }>`select count(*) as n from oai_tombstones t
          where ${tombstoneWhere(filter)}`.execute(db);
        n += Number(tombstones.rows[0]?.n ?? 0);
      }
      return n;
    },

    async get(pid) {
      const { rows } =
        await sql<RawRow>`select o.pid, o.format_id, o.date_modified as stamp, o.archived as deleted
        from objects o where o.pid = ${pid} and ${listed("o")}
        union all
        select t.pid, t.format_id, t.date_deleted as stamp, 1 as deleted from oai_tombstones t
        where t.pid = ${pid} and not exists (select 1 from objects x where x.pid = t.pid)`.execute(db);
      return rows[0] ? toRecord(rows[0]) : undefined;
    },

    async earliest() {
      const object = await sql<{ stamp: number | string }>`select o.date_modified as stamp from objects o
        where ${listed("o")} order by o.date_modified limit 1`.execute(db);
      const tombstone = await sql<{ stamp: number | string }>`select min(date_deleted) as stamp
        from oai_tombstones`.execute(db);
      const stamps = [object.rows[0]?.stamp, tombstone.rows[0]?.stamp]
        .filter((stamp) => stamp !== undefined && stamp !== null)
        .map(Number);
      return stamps.length > 0 ? Math.min(...stamps) : undefined;
    },

    async packagesOf(pids) {
      const found = new Map<string, string[]>();
      for (let i = 0; i < pids.length; i += 500) {
        const batch = pids.slice(i, i + 500);
        const { rows } = await sql<{ pid: string; map_pid: string }>`
          select distinct r.subject as pid, r.map_pid from search_relations r
          join objects m on m.pid = r.map_pid
          where r.subject in (${sql.join(batch)}) and ${listed("m")}
          union
          select distinct r.map_pid as pid, r.map_pid from search_relations r
          join objects m on m.pid = r.map_pid
          where r.map_pid in (${sql.join(batch)}) and ${listed("m")}
          order by 1, 2`.execute(db);
        for (const { pid, map_pid } of rows) {
          const maps = found.get(pid) ?? [];
          maps.push(map_pid);
          found.set(pid, maps);
        }
      }
      return found;
    },

    async maps(after, limit) {
      const { rows } = await sql<{ pid: string }>`select distinct r.map_pid as pid from search_relations r
        join objects m on m.pid = r.map_pid
        where ${listed("m")} ${after === undefined ? sql`` : sql`and r.map_pid > ${after}`}
        order by r.map_pid limit ${limit}`.execute(db);
      return rows.map((row) => row.pid);
    },
  };
}

/** Whether "public" holds any permission (each implies read), as the access rules read a policy. */
function grantsPublic(sysmeta: StoredObject["sysmeta"]): boolean {
  return (
    sysmeta.rightsHolder === "public" || sysmeta.accessPolicy.some((rule) => rule.subjects.includes("public"))
  );
}

/**
 * Inside the transaction removing `removed`: a public object of this node's own leaves a tombstone dated now (a
 * later removal of a PID used again replaces it).
 */
export async function recordTombstone(tx: Db, removed: StoredObject, now: number): Promise<void> {
  if (removed.isReplica || !grantsPublic(removed.sysmeta)) return;
  const pid = removed.sysmeta.identifier;
  await tx.deleteFrom("oai_tombstones").where("pid", "=", pid).execute();
  await tx
    .insertInto("oai_tombstones")
    .values({ pid, format_id: removed.sysmeta.formatId, date_deleted: now })
    .execute();
}
