/**
 * Package fields from OAI-ORE resource maps, as the DataONE indexer sets them: every aggregated object gets the
 * map's identifier in `resourceMap`; a metadata object that cito:documents another gets it in `documents`, and
 * that object gets the metadata's identifier in `isDocumentedBy`. The relations are kept per map, so an object
 * indexed before or after its map gets them, and a map's removal takes them away.
 */
import type { Kysely } from "kysely";
import type { Tables } from "../db/schema.ts";
import { parseResourceMap } from "../ore/index.ts";
import type { SearchDocument } from "./document.ts";

export const RESOURCE_MAP_FORMATS = new Set(["http://www.openarchives.org/ore/terms"]);

interface Relation {
  subject: string;
  field: "resourceMap" | "documents" | "isDocumentedBy";
  object: string;
}

/** The relations a resource map states (the map itself aggregates nothing of its own). */
export async function readRelations(bytes: Buffer, mapPid: string): Promise<Relation[]> {
  const map = await parseResourceMap(bytes);
  const out: Relation[] = map.members.map((member) => ({
    subject: member,
    field: "resourceMap",
    object: mapPid,
  }));
  for (const { metadata, data } of map.documents) {
    out.push({ subject: metadata, field: "documents", object: data });
    out.push({ subject: data, field: "isDocumentedBy", object: metadata });
  }
  return out;
}

/**
 * Replace the relations of `mapPid`; returns every object whose package fields may have changed (the ones it
 * named before and the ones it names now).
 */
export async function replaceRelations(
  db: Kysely<Tables>,
  mapPid: string,
  relations: Relation[],
): Promise<string[]> {
  const before = await db
    .selectFrom("search_relations")
    .select("subject")
    .where("map_pid", "=", mapPid)
    .execute();
  const unique = new Map(relations.map((r) => [`${r.subject}\u0000${r.field}\u0000${r.object}`, r]));
  await db.transaction().execute(async (tx) => {
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

/** The package fields of one object, from every map that names it. */
/** packageFields of several objects in one query. */
export async function packageFieldsOfMany(
  db: Kysely<Tables>,
  pids: readonly string[],
): Promise<Map<string, SearchDocument>> {
  const docs = new Map<string, SearchDocument>(pids.map((pid) => [pid, new Map()]));
  for (let i = 0; i < pids.length; i += 500) {
    const rows = await db
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

export async function packageFields(db: Kysely<Tables>, pid: string): Promise<SearchDocument> {
  const rows = await db
    .selectFrom("search_relations")
    .select(["field", "object"])
    .where("subject", "=", pid)
    .orderBy("map_pid")
    .orderBy("object")
    .execute();
  const doc: SearchDocument = new Map();
  for (const { field, object } of rows) {
    const list = doc.get(field) ?? [];
    if (!list.includes(object)) list.push(object);
    doc.set(field, list);
  }
  return doc;
}
