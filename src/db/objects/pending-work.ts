/** Blob intents and the system-metadata refresh queue: small keyed tables. */
import type { Kysely } from "kysely";
import { FixedSql } from "../engine/statement-texts.ts";
import type { Tables } from "../schema.ts";
import type { BlobIntents, SysmetaRefreshQueue } from "../types.ts";

const ADD_INTENT = new FixedSql(
  "insert into blob_intents (content_key) values (?) on conflict (content_key) do nothing",
);
const REMOVE_INTENT = new FixedSql("delete from blob_intents where content_key = ?");

export function blobIntents(db: Kysely<Tables>): BlobIntents {
  return {
    async add(key) {
      await ADD_INTENT.run(db, [key]);
    },
    async remove(key) {
      await REMOVE_INTENT.run(db, [key]);
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
