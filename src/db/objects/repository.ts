/** The objects repository: system metadata rows, their access rows, and lists in (dateSysMetadataModified, pid) order. */
import { type Kysely, sql } from "kysely";
import type { SystemMetadata } from "../../types/sysmeta.ts";
import { FixedSql, insertRows, onPostgres } from "../engine/statement-texts.ts";
import { DuplicateKeyError, isUniqueViolation, StaleVersionError } from "../errors.ts";
import { readableBy } from "../lists/filters.ts";
import { listObjects } from "../lists/object-list.ts";
import type { KeysetPager, Write } from "../lists/pager.ts";
import { recordTombstone } from "../oai-records.ts";
import type { ObjectsTable, Tables } from "../schema.ts";
import type { ObjectRepository, StoredObject } from "../types.ts";
import { coalescedReads } from "./coalesced-reads.ts";
import { digestMatch } from "./digest-match.ts";
import { countAfter, versionsOf } from "./index-walk.ts";
import type { RowCache } from "./row-cache.ts";
import { accessRows, fromRow, toRow } from "./rows.ts";
import { claimPid, claimPids, joinSeries, leaveSeries, releasePid } from "./series.ts";

export { RowCache } from "./row-cache.ts";

/** Identifiers per query in getMany (well under SQLite's and PostgreSQL's bound-parameter limits). */
const GET_MANY_BATCH = 500;

/** List sort key: (date_modified, pid). */
export type ObjectKey = readonly [number, string];

/**
 * Synchronous reads straight from the SQLite handle, past the query builder (docs/decisions.md, "Hot paths").
 * Usable only while no transaction is open on the connection; otherwise reads queue behind it.
 */
export interface DirectReads {
  readonly available: boolean;
  objectRow(pid: string): ObjectsTable | undefined;
  identifierInUse(id: string): boolean;
}

export type ObjectWrite = Write<ObjectKey, StoredObject>;

const ACCESS_COLUMNS = ["pid", "subject", "permission"] as const;
const IDENTIFIER_IN_USE = new FixedSql("select id from identifiers where id = ?");
/** An object's row by PID: one per MN getSystemMetadata, so prepared once per PostgreSQL connection. */
const OBJECT_BY_PID = new FixedSql("select * from objects where pid = ?", { prepared: true });
/** Rows of several PIDs (a text array), for reads coalesced on PostgreSQL (coalesced-reads.ts). */
const OBJECTS_BY_PIDS = new FixedSql("select * from objects where pid = any(cast(? as text[]))", {
  prepared: true,
});

/** The columns of `row` with a value (Kysely's rule: an undefined value leaves its column out). */
function definedColumns<Row extends object>(row: Row): (keyof Row & string)[] {
  return (Object.keys(row) as (keyof Row & string)[]).filter((column) => row[column] !== undefined);
}

/** Where a repository runs: the database itself, or one transaction. */
export interface ObjectScope {
  db: Kysely<Tables>;
  pager: KeysetPager<ObjectKey, StoredObject>;
  /**
   * Run a multi-statement write atomically (in a transaction of its own, or in the one already open); what it
   * records in `writes` reaches the pager once committed.
   */
  write<T>(work: (db: Kysely<Tables>, writes: ObjectWrite[]) => Promise<T>): Promise<T>;
  direct?: DirectReads;
  /** Rows recently read (outside transactions only); writes forget theirs once committed. */
  cache?: RowCache;
}

export function objectRepository(scope: ObjectScope): ObjectRepository {
  const { db, pager, direct, cache } = scope;

  const writeAccessRows = async (tx: Kysely<Tables>, object: StoredObject, replace: boolean) => {
    if (replace) await tx.deleteFrom("access_rules").where("pid", "=", object.sysmeta.identifier).execute();
    await insertRows(tx, "access_rules", ACCESS_COLUMNS, accessRows(object));
  };

  // Outside transactions on PostgreSQL, reads of single rows in one turn of the event loop go as one query.
  const readRow =
    onPostgres(db) && !db.isTransaction
      ? coalescedReads(
          (pid) => OBJECT_BY_PID.first<ObjectsTable>(db, [pid]),
          async (pids) => {
            const { rows } = await OBJECTS_BY_PIDS.run<ObjectsTable>(db, [pids]);
            return new Map(rows.map((row) => [row.pid, row]));
          },
        )
      : (pid: string) => OBJECT_BY_PID.first<ObjectsTable>(db, [pid]);
  /** A row read, as an object, kept in the cache. */
  const kept = (row: Parameters<typeof fromRow>[0], stamp: number): StoredObject => {
    const object = fromRow(row);
    cache?.put(object, stamp);
    return object;
  };

  /** The object, when the row cache or SQLite's handle has it at once. */
  const peek = (pid: string): StoredObject | undefined => {
    const cached = cache?.get(pid);
    if (cached || !direct?.available) return cached;
    const stamp = cache?.stamp ?? 0;
    const row = direct.objectRow(pid);
    return row ? kept(row, stamp) : undefined;
  };

  return {
    async get(pid) {
      const now = peek(pid);
      if (now || direct?.available) return now;
      const stamp = cache?.stamp ?? 0;
      const row = await readRow(pid);
      return row ? kept(row, stamp) : undefined;
    },

    peek,

    async getMany(pids) {
      const found = new Map<string, StoredObject>();
      const unique = [...new Set(pids)];
      for (let at = 0; at < unique.length; at += GET_MANY_BATCH) {
        const batch = unique.slice(at, at + GET_MANY_BATCH);
        const rows = await db.selectFrom("objects").selectAll().where("pid", "in", batch).execute();
        for (const row of rows) found.set(row.pid, fromRow(row));
      }
      return found;
    },

    async headOfSeries(sid) {
      const row = await db
        .selectFrom("identifiers")
        .select("head")
        .where("id", "=", sid)
        .where("kind", "=", "sid")
        .executeTakeFirst();
      return row?.head ?? undefined;
    },

    async isIdentifierInUse(id) {
      if (direct?.available) return direct.identifierInUse(id);
      return (await IDENTIFIER_IN_USE.first(db, [id])) !== undefined;
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
      const row = toRow(object);
      try {
        await scope.write(async (tx, writes) => {
          await insertRows(tx, "objects", definedColumns(row), [row]);
          await claimPid(tx, row.pid);
          await joinSeries(tx, object.sysmeta, object.isReplica);
          await writeAccessRows(tx, object, false);
          // As stored (defaults filled in), so that list filters judge it as the database does.
          writes.push({ key: [row.date_modified, row.pid], after: fromRow(row) });
        });
      } catch (error) {
        if (isUniqueViolation(error)) throw new DuplicateKeyError(`pid ${object.sysmeta.identifier} exists`);
        throw error;
      }
    },

    async insertMany(objects) {
      if (objects.length === 0) return;
      const rows = objects.map(toRow);
      try {
        await scope.write(async (tx, writes) => {
          // Chunks keep each statement under both dialects' limits on bound parameters.
          for (let i = 0; i < rows.length; i += 200) {
            await tx
              .insertInto("objects")
              .values(rows.slice(i, i + 200))
              .execute();
          }
          await claimPids(
            tx,
            rows.map((row) => row.pid),
          );
          for (const object of objects) await joinSeries(tx, object.sysmeta, object.isReplica);
          const access = objects.flatMap((object) => accessRows(object));
          for (let i = 0; i < access.length; i += 1000) {
            await tx
              .insertInto("access_rules")
              .values(access.slice(i, i + 1000))
              .execute();
          }
          for (const row of rows) writes.push({ key: [row.date_modified, row.pid], after: fromRow(row) });
        });
      } catch (error) {
        if (isUniqueViolation(error)) throw new DuplicateKeyError("an identifier of the batch exists");
        throw error;
      }
    },

    async replaceSysmeta(sysmeta: SystemMetadata, expectedSerialVersion?: number) {
      const pid = sysmeta.identifier;
      await scope.write(async (tx, writes) => {
        const current = await tx.selectFrom("objects").selectAll().where("pid", "=", pid).executeTakeFirst();
        if (!current) throw new Error(`no object ${pid} to update`);
        const before = fromRow(current);
        const after: StoredObject = { ...before, sysmeta };
        const row = toRow(after);
        const { pid: _pid, ...columns } = row;
        // With an expected serialVersion the row changes only if it still has it: the update waits for any
        // concurrent writer of the row (PostgreSQL row lock) and then re-checks, so one of two racing calls wins.
        const updated = await tx
          .updateTable("objects")
          .set(columns)
          .where("pid", "=", pid)
          .$if(expectedSerialVersion !== undefined, (q) =>
            q.where("serial_version", "=", expectedSerialVersion as number),
          )
          .executeTakeFirst();
        if (Number(updated.numUpdatedRows) === 0) throw new StaleVersionError(pid);
        if (current.sid !== row.sid) {
          await leaveSeries(tx, current.sid);
          await joinSeries(tx, sysmeta, before.isReplica);
        }
        await writeAccessRows(tx, after, true);
        const key: ObjectKey = [Math.min(current.date_modified, row.date_modified), pid];
        writes.push({ key, before, after: fromRow(row) });
      });
    },

    async remove(pid) {
      // Access rows go with the object (foreign key, cascading).
      await scope.write(async (tx, writes) => {
        const removed = await tx
          .deleteFrom("objects")
          .where("pid", "=", pid)
          .returningAll()
          .executeTakeFirst();
        if (!removed) return;
        await releasePid(tx, pid);
        await leaveSeries(tx, removed.sid);
        await recordTombstone(tx, fromRow(removed), Date.now());
        writes.push({ key: [removed.date_modified, pid], before: fromRow(removed) });
      });
    },

    async countByContentKey(key) {
      const row = await db
        .selectFrom("objects")
        .select((eb) => eb.fn.countAll<number>().as("n"))
        .where("content_key", "=", key)
        .executeTakeFirst();
      return Number(row?.n ?? 0);
    },

    async pidsWithDigest(hex, readers, limit) {
      const rows = await db
        .selectFrom("objects")
        .select("pid")
        .where(digestMatch(hex))
        .$if(readers !== undefined, (q) => q.where((eb) => readableBy(eb, readers as readonly string[])))
        .orderBy("date_uploaded")
        .orderBy("pid")
        .limit(limit)
        .execute();
      return rows.map((r) => r.pid);
    },

    async recordDigest(key, hash, value) {
      // Not a change of the object (no change record, no new dateSysMetadataModified): a fact about its bytes.
      const updated = await db
        .updateTable("objects")
        .set({ [hash]: value })
        .where("content_key", "=", key)
        .where(hash, "=", "")
        .returning("pid")
        .execute();
      for (const { pid } of updated) cache?.forget(pid);
    },

    async replicaBytes(exceptPid) {
      const { rows } = await sql<{ used: number | string | null }>`
        select sum(size) as used from objects where is_replica = 1 and pid <> ${exceptPid}
      `.execute(db);
      return Number(rows[0]?.used ?? 0);
    },

    async pidsAfter(which, after, limit) {
      const rows = await db
        .selectFrom("objects")
        .select("pid")
        .$if(which === "withPolicy", (q) => q.where("replication_policy", "is not", null))
        .$if(which === "withReplicas", (q) => q.where("replicas", "<>", "[]"))
        .$if(after !== undefined, (q) => q.where("pid", ">", after as string))
        .orderBy("pid")
        .limit(limit)
        .execute();
      return rows.map((r) => r.pid);
    },

    countAfter: (after) => countAfter(db, after),

    versionsOf: (pids) => versionsOf(db, pids),

    list: (filter, start, count) => listObjects(db, pager, filter, start, count),
  };
}
