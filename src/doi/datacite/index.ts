/** DataCite Metadata Schema 4.6: the record type, its XML both ways, and the crosswalk from an object. */
export {
  type DataciteSource,
  dataciteRecordFor,
  dataciteXmlFor,
  doiOf,
  type RelatedObjects,
} from "./crosswalk.ts";
export { DATACITE_NAMESPACE, emitDatacite } from "./emit.ts";
export { parseDatacite } from "./parse.ts";
export type { DataciteRecord } from "./record.ts";
