/** Blob intents and the system-metadata refresh queue: small keyed tables. */
import type { Kysely } from "kysely";
import type { Tables } from "./schema.ts";
import type { BlobIntents, SysmetaRefreshQueue } from "./types.ts";

/**
 * `grouped`: SQLite, whose transactions are committed in groups (group-commit.ts): an intent added outside a
 * transaction is added in one of its own, so that it commits together with concurrent writes.
 */
export function blobIntents(db: Kysely<Tables>, grouped = false): BlobIntents {
  const insert = (into: Kysely<Tables>, key: string) =>
    into
      .insertInto("blob_intents")
      .values({ content_key: key })
      .onConflict((oc) => oc.column("content_key").doNothing())
      .execute();
  return {
    async add(key) {
      if (grouped) await db.transaction().execute((tx) => insert(tx, key));
      else await insert(db, key);
    },
    async remove(key) {
      await db.deleteFrom("blob_intents").where("content_key", "=", key).execute();
    },
    async list() {
      return (await db.selectFrom("blob_intents").select("content_key").execute()).map((r) => r.content_key);
    },
  };
}

export function sysmetaRefreshQueue(db: Kysely<Tables>): SysmetaRefreshQueue {
  return {
    async request(pid, serialVersion, modified) {
      const row = {
        pid,
        serial_version: serialVersion,
        date_modified: modified.getTime(),
        requested_at: Date.now(),
      };
      await db
        .insertInto("sysmeta_refresh")
        .values(row)
        .onConflict((oc) =>
          oc.column("pid").doUpdateSet({
            serial_version: row.serial_version,
            date_modified: row.date_modified,
            requested_at: row.requested_at,
          }),
        )
        .execute();
    },
    async pending() {
      const rows = await db.selectFrom("sysmeta_refresh").selectAll().orderBy("requested_at").execute();
      return rows.map((r) => ({
        pid: r.pid,
        serialVersion: Number(r.serial_version),
        modified: new Date(Number(r.date_modified)),
      }));
    },
    async done(pid) {
      await db.deleteFrom("sysmeta_refresh").where("pid", "=", pid).execute();
    },
  };
}
