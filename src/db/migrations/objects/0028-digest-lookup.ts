/**
 * 0028-digest-lookup: objects found by a digest of their bytes (`checksum:<hex>` in search, `hash://` URIs
 * resolved). The system metadata's checksum in any case (clients write hex in either case), and the MD5 and
 * SHA-1 digests the node recorded when it computed them (most rows have none: ""). SHA-256 is the content key,
 * already indexed (objects_content).
 */
import { sql } from "kysely";
import type { Migration } from "../migration.ts";

export const digestLookupMigration: Migration = {
  name: "0028-digest-lookup",
  async up(db) {
    await sql`create index objects_checksum_lower on objects (lower(checksum_value))`.execute(db);
    await sql`create index objects_md5 on objects (md5) where md5 <> ''`.execute(db);
    await sql`create index objects_sha1 on objects (sha1) where sha1 <> ''`.execute(db);
  },
};
