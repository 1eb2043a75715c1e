/** DataONE types (v1, v1.1, v2.0): plain values and their XML codecs. */

export * from "./node.ts";
export * from "./sysmeta.ts";
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
export { type ErrorDocument, parseError, serializeError } from "./xml-documents/error-xml.ts";
export {
  FORMAT_TYPES,
  type FormatType,
  type ObjectFormat,
  parseObjectFormat,
  parseObjectFormatList,
  serializeObjectFormat,
  serializeObjectFormatList,
} from "./xml-documents/format-xml.ts";
export {
  type LogEntry,
  type ObjectInfo,
  parseLog,
  parseObjectList,
  type Slice,
  serializeLog,
  serializeObjectList,
  V1_EVENTS,
} from "./xml-documents/lists-xml.ts";
export { parseNode, parseNodeList, serializeNode, serializeNodeList } from "./xml-documents/node-xml.ts";
export {
  parseAccessPolicy,
  parseReplica,
  parseReplicationPolicy,
  serializeAccessPolicy,
  serializeReplica,
  serializeReplicationPolicy,
} from "./xml-documents/policy-xml.ts";
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
} from "./xml-documents/simple-xml.ts";
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
} from "./xml-documents/subject-xml.ts";
export { parseSystemMetadata, serializeSystemMetadata } from "./xml-documents/sysmeta-xml.ts";
