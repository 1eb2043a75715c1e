/** DataONE types (v1, v1.1, v2.0): plain values and their XML codecs. */

export { type ErrorDocument, parseError, serializeError } from "./error-xml.ts";
export {
  FORMAT_TYPES,
  type FormatType,
  type ObjectFormat,
  parseObjectFormat,
  parseObjectFormatList,
  serializeObjectFormat,
  serializeObjectFormatList,
} from "./format-xml.ts";
export {
  type LogEntry,
  type ObjectInfo,
  parseLog,
  parseObjectList,
  type Slice,
  serializeLog,
  serializeObjectList,
  V1_EVENTS,
} from "./lists-xml.ts";
export * from "./node.ts";
export { parseNode, parseNodeList, serializeNode, serializeNodeList } from "./node-xml.ts";
export {
  parseAccessPolicy,
  parseReplica,
  parseReplicationPolicy,
  serializeAccessPolicy,
  serializeReplica,
  serializeReplicationPolicy,
} from "./policy-xml.ts";
export {
  type ObjectLocation,
  type ObjectLocationList,
  type OptionList,
  parseChecksum,
  parseIdentifier,
  parseQueryEngineList,
  serializeChecksum,
  serializeChecksumAlgorithmList,
  serializeIdentifier,
  serializeObjectLocationList,
  serializeOptionList,
  serializeQueryEngineList,
} from "./simple-xml.ts";
export {
  type Group,
  type Person,
  parseGroup,
  parsePerson,
  parseSubjectInfo,
  type SubjectInfo,
  serializeGroup,
  serializePerson,
  serializeSubjectInfo,
} from "./subject-xml.ts";
export * from "./sysmeta.ts";
export { parseSystemMetadata, serializeSystemMetadata } from "./sysmeta-xml.ts";
export {
  type ErrorClass,
  escapeAttr,
  escapeText,
  formatDateTime,
  hasInvalidXmlChars,
  NS_V1,
  NS_V1_1,
  NS_V2,
  parseDateTime,
  parseXml,
  stripInvalidXmlChars,
} from "./xml.ts";
