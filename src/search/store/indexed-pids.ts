/**
 * What indexing in bulk (src/search/indexing/pid-walk.ts) reads of the index's own tables as it walks the
 * objects' PIDs beside it: which of a page of PIDs have a document, and the PIDs of the documents (or of the
 * resource maps with relations) in keyset pages, to ask the node which of them still have an object.
 */
import type { Database } from "../../db/types.ts";

type Db = Pick<Database, "kysely">;

/** PIDs per query (well under SQLite's and PostgreSQL's bound-parameter limits). */
const AMONG_BATCH = 500;

/** Which of these PIDs have a document. */
export async function documentedAmong(db: Db, pids: readonly string[]): Promise<Set<string>> {
  const found = new Set<string>();
  for (let at = 0; at < pids.length; at += AMONG_BATCH) {
    const rows = await db.kysely
      .selectFrom("search_docs")
      .select("pid")
      .where("pid", "in", pids.slice(at, at + AMONG_BATCH))
      .execute();
    for (const row of rows) found.add(row.pid);
  }
  return found;
}

/**
 * The next `size` PIDs after `after` (undefined: from the first), in PID order, of the documents (kind
 * "documents") or of the resource maps with relations (kind "maps").
 */
export async function indexedPidsAfter(
  db: Db,
  kind: "documents" | "maps",
  after: string | undefined,
  size: number,
): Promise<string[]> {
  if (kind === "documents") {
    const rows = await db.kysely
      .selectFrom("search_docs")
      .select("pid")
      .$if(after !== undefined, (q) => q.where("pid", ">", after as string))
      .orderBy("pid")
      .limit(size)
      .execute();
    return rows.map((row) => row.pid);
  }
  const rows = await db.kysely
    .selectFrom("search_relations")
    .select("map_pid")
    .distinct()
    .$if(after !== undefined, (q) => q.where("map_pid", ">", after as string))
    .orderBy("map_pid")
    .limit(size)
    .execute();
  return rows.map((row) => row.map_pid);
}
