/**
 * Package fields from OAI-ORE resource maps, as the DataONE indexer sets them: every aggregated object gets the
 * map's identifier in `resourceMap`; a metadata object that cito:documents another gets it in `documents`, and
 * that object gets the metadata's identifier in `isDocumentedBy`. The relations are kept per map, so an object
 * indexed before or after its map gets them, and a map's removal takes them away. Kept in `search_relations`
 * (src/search/store/relations.ts).
 */
import { parseResourceMap } from "../../ore/index.ts";

export { RESOURCE_MAP_FORMATS } from "../../ore/index.ts";

export interface Relation {
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
