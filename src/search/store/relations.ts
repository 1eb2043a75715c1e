/** Resource-map relations (src/search/schema/packages.ts) in `search_relations`, kept per map, and the package fields. */

import { FixedSql } from "../../db/engine/statement-texts.ts";
import type { Database } from "../../db/types.ts";
import type { SearchDocument } from "../schema/document.ts";
import type { Relation } from "../schema/packages.ts";

/**
 * Replace the relations of `mapPid`; returns every object whose package fields may have changed (the ones it
 * named before and the ones it names now).
 */
export async function replaceRelations(
  db: Pick<Database, "kysely">,
  mapPid: string,
  relations: Relation[],
): Promise<string[]> {
  const before = await db.kysely
    .selectFrom("search_relations")
    .select("subject")
    .where("map_pid", "=", mapPid)
    .execute();
  const unique = new Map(relations.map((r) => [`${r.subject}\u0000${r.field}\u0000${r.object}`, r]));
  await db.kysely.transaction().execute(async (tx) => {
    await tx.deleteFrom("search_relations").where("map_pid", "=", mapPid).execute();
    const rows = [...unique.values()].map((r) => ({ map_pid: mapPid, ...r }));
    for (let i = 0; i < rows.length; i += 200) {
      await tx
        .insertInto("search_relations")
        .values(rows.slice(i, i + 200))
        .execute();
    }
  });
  return [...new Set([...before.map((r) => r.subject), ...relations.map((r) => r.subject)])];
}

/** packageFields of several objects in one query. */
export async function packageFieldsOfMany(
  db: Pick<Database, "kysely">,
  pids: readonly string[],
): Promise<Map<string, SearchDocument>> {
  const docs = new Map<string, SearchDocument>(pids.map((pid) => [pid, new Map()]));
  for (let i = 0; i < pids.length; i += 500) {
    const rows = await db.kysely
      .selectFrom("search_relations")
      .select(["subject", "field", "object"])
      .where("subject", "in", pids.slice(i, i + 500))
      .orderBy("map_pid")
      .orderBy("object")
      .execute();
    for (const { subject, field, object } of rows) {
      const doc = docs.get(subject) ?? new Map();
      const list = doc.get(field) ?? [];
      if (!list.includes(object)) list.push(object);
      doc.set(field, list);
      docs.set(subject, doc);
    }
  }
  return docs;
}

const PACKAGE_FIELDS = new FixedSql(
  "select field, object from search_relations where subject = ? order by map_pid, object",
);

/** The package fields of one object, from every map that names it. */
export async function packageFields(db: Pick<Database, "kysely">, pid: string): Promise<SearchDocument> {
  const { rows } = await PACKAGE_FIELDS.run<{ field: string; object: string }>(db.kysely, [pid]);
  const doc: SearchDocument = new Map();
  for (const { field, object } of rows) {
    const list = doc.get(field) ?? [];
    if (!list.includes(object)) list.push(object);
    doc.set(field, list);
  }
  return doc;
}

/** The objects a resource map names (relations it states). */
export async function subjectsOfMap(db: Pick<Database, "kysely">, mapPid: string): Promise<string[]> {
  const rows = await db.kysely
    .selectFrom("search_relations")
    .select("subject")
    .where("map_pid", "=", mapPid)
    .execute();
  return rows.map((row) => row.subject);
}
