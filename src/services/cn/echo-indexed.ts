/**
 * CNDiagnostic.echoIndexedObject: "Returns the parsed document(s) as they would be before being added to the
 * search index." The system metadata must pass echoSystemMetadata; the object is read with the extractor the
 * indexer uses for its format, and the answer is the one document as the solr engine returns documents.
 */

import type { NodeContext } from "../../context/node-context.ts";
import { InvalidRequest, UnsupportedMetadataType } from "../../errors/exceptions.ts";
import { extractorFor, solrXml, storedDoc, sysmetaFields, withCopyFields } from "../../search/index.ts";
import type { SystemMetadata } from "../../types/index.ts";
import { echoSystemMetadata } from "./diagnostic.ts";

export async function echoIndexedObject(
  ctx: NodeContext,
  queryEngine: string,
  sysmeta: SystemMetadata,
  object: Buffer,
): Promise<string> {
  if (queryEngine !== "solr") {
    throw new InvalidRequest(`No query engine "${queryEngine}"; this node indexes for "solr".`);
  }
  await echoSystemMetadata(ctx, sysmeta);
  const extract = extractorFor(sysmeta.formatId);
  if (!extract) {
    throw new UnsupportedMetadataType(
      `The index reads no science metadata of format "${sysmeta.formatId}"; only its system metadata is indexed.`,
      { pid: sysmeta.identifier },
    );
  }
  const doc = extract(object);
  for (const [name, values] of sysmetaFields({ ...sysmeta, replicas: sysmeta.replicas ?? [] }, ctx.formats))
    doc.set(name, values);
  const params = { queryEngine };
  return solrXml({ params, numFound: 1, start: 0, docs: [storedDoc(withCopyFields(doc))], qtime: 0 });
}
