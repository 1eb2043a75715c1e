/** The objects repository: system metadata rows, their access rules, and lists in (dateSysMetadataModified, pid) order. */
import { type ExpressionBuilder, type Kysely, sql } from "kysely";
import type { SystemMetadata } from "../types/sysmeta.ts";
import { DuplicateKeyError, isUniqueViolation } from "./errors.ts";
import type { KeysetPager } from "./pager.ts";
import { accessRows, fromRow, INFO_COLUMNS, toInfo, toRow } from "./rows.ts";
import type { Tables } from "./schema.ts";
import type { ObjectListFilter, ObjectRepository, StoredObject } from "./types.ts";

type Key = [number, string];

export function objectRepository(db: Kysely<Tables>, pager: KeysetPager): ObjectRepository {
  const writeAccessRules = async (object: StoredObject) => {
    await db.deleteFrom("access_rules").where("pid", "=", object.sysmeta.identifier).execute();
    const rows = accessRows(object);
    if (rows.length > 0) await db.insertInto("access_rules").values(rows).execute();
  };

  return {
    async get(pid) {
      const row = await db.selectFrom("objects").selectAll().where("pid", "=", pid).executeTakeFirst();
      return row ? fromRow(row) : undefined;
    },

    async headOfSeries(sid) {
      const members = await db
        .selectFrom("objects")
        .select(["pid", "obsoleted_by", "date_uploaded"])
        .where("sid", "=", sid)
        .execute();
      const inSeries = new Set(members.map((m) => m.pid));
      const heads = members
        .filter((m) => m.obsoleted_by === null || !inSeries.has(m.obsoleted_by))
        .sort((a, b) => Number(b.date_uploaded) - Number(a.date_uploaded) || (a.pid < b.pid ? 1 : -1));
      return heads[0]?.pid;
    },

    async isIdentifierInUse(id) {
      const row = await db
        .selectFrom("objects")
        .select("pid")
        .where((eb) => eb.or([eb("pid", "=", id), eb("sid", "=", id)]))
        .limit(1)
        .executeTakeFirst();
      return row !== undefined;
    },

    async pidsOfSeries(sid) {
      const rows = await db
        .selectFrom("objects")
        .select("pid")
        .where("sid", "=", sid)
        .orderBy("date_uploaded")
        .orderBy("pid")
        .execute();
      return rows.map((r) => r.pid);
    },

    async insert(object) {
      try {
        await db.insertInto("objects").values(toRow(object)).execute();
      } catch (error) {
        if (isUniqueViolation(error)) throw new DuplicateKeyError(`pid ${object.sysmeta.identifier} exists`);
        throw error;
      }
      await writeAccessRules(object);
      pager.invalidate();
    },

    async replaceSysmeta(sysmeta: SystemMetadata) {
      const current = await db
        .selectFrom("objects")
        .selectAll()
        .where("pid", "=", sysmeta.identifier)
        .executeTakeFirst();
      if (!current) throw new Error(`no object ${sysmeta.identifier} to update`);
      const stored = fromRow(current);
      const next: StoredObject = { ...stored, sysmeta };
      const { pid: _pid, ...columns } = toRow(next);
      await db.updateTable("objects").set(columns).where("pid", "=", sysmeta.identifier).execute();
      await writeAccessRules(next);
      pager.invalidate();
    },

    async remove(pid) {
      await db.deleteFrom("access_rules").where("pid", "=", pid).execute();
      await db.deleteFrom("objects").where("pid", "=", pid).execute();
      pager.invalidate();
    },

    async countByContentKey(key) {
      const row = await db
        .selectFrom("objects")
        .select((eb) => eb.fn.countAll<number>().as("n"))
        .where("content_key", "=", key)
        .executeTakeFirst();
      return Number(row?.n ?? 0);
    },

    async list(filter, start, count) {
      const where = (eb: ExpressionBuilder<Tables, "objects">) => eb.and(conditions(eb, filter));
      const { total, rows } = await pager.page<Pick<Tables["objects"], (typeof INFO_COLUMNS)[number]>, Key>(
        {
          cacheKey: `objects:${JSON.stringify(filter)}`,
          count: async () => {
            const row = await db
              .selectFrom("objects")
              .select((eb) => eb.fn.countAll<number>().as("n"))
              .where(where)
              .executeTakeFirst();
            return Number(row?.n ?? 0);
          },
          fetch: (after, offset, limit) => {
            let query = db
              .selectFrom("objects")
              .select([...INFO_COLUMNS])
              .where(where);
            if (after) query = query.where(sql<boolean>`(date_modified, pid) > (${after[0]}, ${after[1]})`);
            return query.orderBy("date_modified").orderBy("pid").limit(limit).offset(offset).execute();
          },
          keyOf: (row) => [Number(row.date_modified), row.pid],
        },
        start,
        count,
      );
      return { start, total, items: rows.map(toInfo) };
    },
  };
}

function conditions(eb: ExpressionBuilder<Tables, "objects">, f: ObjectListFilter) {
  const all = [];
  if (f.fromDate) all.push(eb("date_modified", ">=", f.fromDate.getTime()));
  if (f.toDate) all.push(eb("date_modified", "<", f.toDate.getTime()));
  if (f.formatId !== undefined) all.push(eb("format_id", "=", f.formatId));
  if (f.identifier !== undefined)
    all.push(eb.or([eb("pid", "=", f.identifier), eb("sid", "=", f.identifier)]));
  if (f.replicaStatus === false) all.push(eb("is_replica", "=", 0));
  if (f.nodeId !== undefined) all.push(eb("authoritative_mn", "=", f.nodeId));
  if (f.readableBy !== undefined) {
    const subjects = f.readableBy.length > 0 ? f.readableBy : [""];
    all.push(
      eb.or([
        eb("rights_holder", "in", subjects),
        eb.exists(
          eb
            .selectFrom("access_rules")
            .select("access_rules.pid")
            .whereRef("access_rules.pid", "=", "objects.pid")
            .where("access_rules.subject", "in", subjects),
        ),
      ]),
    );
  }
  return all;
}
