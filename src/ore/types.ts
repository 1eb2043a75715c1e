/** What a DataONE OAI-ORE resource map says about its package. */
export interface ResourceMap {
  /** The resource map's own identifier (its dcterms:identifier, else decoded from its URI). */
  id: string;
  /** The URI of the aggregation the map describes (usually the map's URI + "#aggregation"). */
  aggregation: string;
  /** Identifiers of the aggregated objects, in document order, each once. The map itself is not a member. */
  members: string[];
  /** cito:documents and cito:isDocumentedBy merged: which metadata object documents which object; each pair once. */
  documents: Documents[];
}

/** `metadata` cito:documents `data` (equivalently, `data` cito:isDocumentedBy `metadata`). */
export interface Documents {
  metadata: string;
  data: string;
}

/** A document that is not a usable resource map (not RDF/XML, no single ore:ResourceMap, too large). */
export class ResourceMapError extends Error {
  override name = "ResourceMapError";
}
