/**
 * What indexing in bulk (src/search/indexing/reindex.ts) reads: the objects by pid (all, or those without a document),
 * their current versions, and documents or resource-map relations whose object no longer exists.
 */
import { type ExpressionBuilder, sql } from "kysely";
import type { Tables } from "../../db/schema.ts";
import type { Database } from "../../db/types.ts";

type Db = Pick<Database, "kysely">;

function withoutDocument({ not, exists, selectFrom }: ExpressionBuilder<Tables, "objects">) {
  return not(
    exists(
      selectFrom("search_docs").select(sql`1`.as("one")).whereRef("search_docs.pid", "=", "objects.pid"),
    ),
  );
}

function objectGone(column: "search_docs.pid" | "search_relations.map_pid") {
  return ({ not, exists, selectFrom }: ExpressionBuilder<Tables, "search_docs" | "search_relations">) =>
    not(exists(selectFrom("objects").select(sql`1`.as("one")).whereRef("objects.pid", "=", column)));
}

/** How many objects there are (`missingOnly`: without a document; `after`: PIDs after it only). */
export async function countObjects(db: Db, missingOnly: boolean, after?: string): Promise<number> {
  let query = db.kysely.selectFrom("objects").select(({ fn }) => fn.countAll<number | string>().as("n"));
  if (missingOnly) query = query.where(withoutDocument);
  if (after !== undefined) query = query.where("pid", ">", after);
  const row = await query.executeTakeFirst();
  return Number(row?.n ?? 0);
}

/** The next `size` object PIDs after `after` in pid order (`missingOnly`: without a document). */
export async function objectPids(
  db: Db,
  after: string | undefined,
  size: number,
  missingOnly: boolean,
): Promise<string[]> {
  let query = db.kysely.selectFrom("objects").select("pid").orderBy("pid").limit(size);
  if (after !== undefined) query = query.where("pid", ">", after);
  if (missingOnly) query = query.where(withoutDocument);
  return (await query.execute()).map((row) => row.pid);
}

/** The current version of these objects: "serialVersion/dateModified" by pid (absent: removed). */
export async function objectVersions(db: Db, pids: string[]): Promise<Map<string, string>> {
  const rows = await db.kysely
    .selectFrom("objects")
    .select(["pid", "serial_version", "date_modified"])
    .where("pid", "in", pids)
    .execute();
  return new Map(rows.map((row) => [row.pid, `${row.serial_version}/${Number(row.date_modified)}`]));
}

/**
 * The next `size` documents (kind "documents") or resource maps with relations (kind "maps") after `after`
 * whose object no longer exists.
 */
export async function staleAfter(
  db: Db,
  kind: "documents" | "maps",
  after: string,
  size: number,
): Promise<{ id: string }[]> {
  if (kind === "documents")
    return db.kysely
      .selectFrom("search_docs")
      .select("pid as id")
      .where("pid", ">", after)
      .where(objectGone("search_docs.pid"))
      .orderBy("pid")
      .limit(size)
      .execute();
  return db.kysely
    .selectFrom("search_relations")
    .select("map_pid as id")
    .distinct()
    .where("map_pid", ">", after)
    .where(objectGone("search_relations.map_pid"))
    .orderBy("map_pid")
    .limit(size)
    .execute();
}
