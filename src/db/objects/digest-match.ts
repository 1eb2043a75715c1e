/**
 * "The object's bytes have this digest", over the columns of `objects` (unqualified, for a query or subquery on
 * that table alone): the system metadata's checksum in any case, whatever its algorithm; the content key, which
 * is the SHA-256 of the bytes the node holds; the MD5 and SHA-1 the node recorded once it computed them. Each
 * probe is one of migration 0028's indexes (or objects_content); a digest's length says which can hold it.
 */
import { type RawBuilder, type SqlBool, sql } from "kysely";
import type { HexDigest } from "../../types/content-hash.ts";

export function digestMatch(hex: HexDigest): RawBuilder<SqlBool> {
  const probes = [sql`lower(checksum_value) = ${hex}`];
  if (hex.length === 64) probes.push(sql`content_key = ${hex}`);
  if (hex.length === 32) probes.push(sql`(md5 = ${hex} and md5 <> '')`);
  if (hex.length === 40) probes.push(sql`(sha1 = ${hex} and sha1 <> '')`);
  return sql<SqlBool>`(${sql.join(probes, sql` or `)})`;
}
