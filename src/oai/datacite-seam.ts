/**
 * The seam for the `oai_datacite` metadata format: a DataCite Metadata Schema 4.6 crosswalk of an object's
 * science metadata, connected once at start-up with connectDataCiteCrosswalk(). Until one is connected the
 * repository neither advertises nor disseminates oai_datacite.
 */
import type { SystemMetadata } from "../types/sysmeta.ts";

export interface DataCiteInput {
  sysmeta: SystemMetadata;
  /** The science metadata document's bytes as stored. */
  metadata: Buffer;
}

/**
 * A DataCite kernel-4 `<resource xmlns="http://datacite.org/schema/kernel-4">` document for the object (an XML
 * declaration before it is allowed), or undefined when its metadata cannot make one.
 */
export type DataCiteCrosswalk = (input: DataCiteInput) => string | undefined | Promise<string | undefined>;

let connected: DataCiteCrosswalk | undefined;

/** Connect the crosswalk (undefined disconnects it). */
export function connectDataCiteCrosswalk(crosswalk: DataCiteCrosswalk | undefined): void {
  connected = crosswalk;
}

export function dataCiteCrosswalk(): DataCiteCrosswalk | undefined {
  return connected;
}
