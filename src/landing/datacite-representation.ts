/**
 * The seam to the DataCite crosswalk: the DataCite Metadata Schema 4.6 XML of an object, for the landing page's
 * content negotiation (`application/vnd.datacite.datacite+xml`) and its describedby signpost. Undefined while no
 * crosswalk is connected: the landing page then neither offers nor links DataCite XML.
 */
import type { NodeContext } from "../services/context.ts";
import type { StoredObject } from "../types/stored-object.ts";

export const DATACITE_MEDIA_TYPE = "application/vnd.datacite.datacite+xml";

export type DataciteCrosswalk = (ctx: NodeContext, object: StoredObject) => Promise<string>;

export function dataciteCrosswalk(): DataciteCrosswalk | undefined {
  return undefined;
}
