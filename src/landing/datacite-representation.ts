/**
 * DataCite Metadata Schema 4.6 XML of an object, for the landing page's content negotiation
 * (`application/vnd.datacite.datacite+xml`) and its describedby signpost: the record the node sends DataCite
 * (src/doi), offered only for an object whose PID is a DOI, since kernel 4's identifier is the DOI.
 */
import { doiOf } from "../doi/datacite/index.ts";
import { dataciteXmlOfObject } from "../doi/records.ts";
import type { NodeContext } from "../services/context.ts";
import type { StoredObject } from "../types/stored-object.ts";

export const DATACITE_MEDIA_TYPE = "application/vnd.datacite.datacite+xml";

export type DataciteCrosswalk = (ctx: NodeContext, object: StoredObject) => Promise<string>;

/** How `object`'s DataCite record is made, or undefined when it has none. */
export function dataciteCrosswalk(object: StoredObject): DataciteCrosswalk | undefined {
  const doi = doiOf(object.sysmeta.identifier);
  if (doi === undefined) return undefined;
  return (ctx, held) => dataciteXmlOfObject(ctx, held, doi);
}
