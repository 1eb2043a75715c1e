/**
 * What bulk indexing (the search index's rebuild and catch-up) reads of the objects beside the pages `pidsAfter`
 * gives: how many there are after a PID, and the current version of a page's objects (absent: no such object),
 * by which it tells a changed or removed object and a document whose object is gone.
 */
import type { Kysely } from "kysely";
import type { ObjectVersion } from "../../types/stored-object.ts";
import type { Tables } from "../schema.ts";

/** Identifiers per query (well under SQLite's and PostgreSQL's bound-parameter limits). */
const VERSIONS_BATCH = 500;

/** How many objects have a PID after `after` (undefined: all of them). */
export async function countAfter(db: Kysely<Tables>, after: string | undefined): Promise<number> {
  const row = await db
    .selectFrom("objects")
    .select(({ fn }) => fn.countAll<number | string>().as("n"))
    .$if(after !== undefined, (q) => q.where("pid", ">", after as string))
    .executeTakeFirst();
  return Number(row?.n ?? 0);
}

/** The current version of each of these objects that exists, by PID. */
export async function versionsOf(
  db: Kysely<Tables>,
  pids: readonly string[],
): Promise<Map<string, ObjectVersion>> {
  const found = new Map<string, ObjectVersion>();
  for (let at = 0; at < pids.length; at += VERSIONS_BATCH) {
    const rows = await db
      .selectFrom("objects")
      .select(["pid", "serial_version", "date_modified"])
      .where("pid", "in", pids.slice(at, at + VERSIONS_BATCH))
      .execute();
    for (const row of rows)
      found.set(row.pid, {
        serialVersion: Number(row.serial_version),
        dateModified: Number(row.date_modified),
      });
  }
  return found;
}
