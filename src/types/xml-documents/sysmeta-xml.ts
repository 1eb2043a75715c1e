/**
 * SystemMetadata documents, types v1 and v2.0. The element order is the XSD sequence:
 * v1 "serialVersion, identifier, formatId, size, checksum, submitter, rightsHolder, accessPolicy,
 * replicationPolicy, obsoletes, obsoletedBy, archived, dateUploaded, dateSysMetadataModified, originMemberNode,
 * authoritativeMemberNode, replica*"; v2.0 extends it with "seriesId, mediaType, fileName".
 */
import { InvalidSystemMetadata } from "../../errors/exceptions.ts";
import type { Checksum, MediaType, SystemMetadata } from "../sysmeta.ts";
import {
  attr,
  dateEl,
  document,
  type ErrorClass,
  el,
  escapeAttr,
  escapeText,
  NS_V1,
  NS_V2,
  namespaceOf,
  optEl,
  parseXml,
  type XmlElement,
} from "../xml.ts";
import {
  checkIdentifier,
  expectRoot,
  nonEmpty,
  optionalText,
  parseBoolean,
  parseDate,
  parseInteger,
  Reader,
  requiredAttr,
  requiredText,
  textOf,
} from "../xml-read.ts";
import {
  accessPolicyContent,
  readAccessPolicy,
  readReplica,
  readReplicationPolicy,
  replicaElement,
  replicationPolicyElement,
} from "./policy-xml.ts";

const V1_SEQUENCE = [
  "serialVersion",
  "identifier",
  "formatId",
  "size",
  "checksum",
  "submitter",
  "rightsHolder",
  "accessPolicy",
  "replicationPolicy",
  "obsoletes",
  "obsoletedBy",
  "archived",
  "dateUploaded",
  "dateSysMetadataModified",
  "originMemberNode",
  "authoritativeMemberNode",
  "replica",
] as const;
const V2_SEQUENCE = [...V1_SEQUENCE, "seriesId", "mediaType", "fileName"] as const;

/** A v1 document leaves out the v2.0-only seriesId, mediaType and fileName. */
export function serializeSystemMetadata(sm: SystemMetadata, version: "v1" | "v2"): string {
  const access = accessPolicyContent(sm.accessPolicy);
  let content =
    optEl("serialVersion", sm.serialVersion) +
    el("identifier", sm.identifier) +
    el("formatId", sm.formatId) +
    `<size>${sm.size}</size>` +
    checksumElement(sm.checksum) +
    optEl("submitter", sm.submitter) +
    el("rightsHolder", sm.rightsHolder) +
    (access === "" ? "" : `<accessPolicy>${access}</accessPolicy>`) +
    (sm.replicationPolicy ? replicationPolicyElement(sm.replicationPolicy) : "") +
    optEl("obsoletes", sm.obsoletes) +
    optEl("obsoletedBy", sm.obsoletedBy) +
    optEl("archived", sm.archived) +
    dateEl("dateUploaded", sm.dateUploaded) +
    dateEl("dateSysMetadataModified", sm.dateSysMetadataModified) +
    optEl("originMemberNode", sm.originMemberNode) +
    optEl("authoritativeMemberNode", sm.authoritativeMemberNode);
  for (const replica of sm.replicas) content += replicaElement(replica);
  if (version === "v2") {
    content += optEl("seriesId", sm.seriesId);
    if (sm.mediaType) content += mediaTypeElement(sm.mediaType);
    content += optEl("fileName", sm.fileName);
  }
  return document(namespaceOf(version), "systemMetadata", "", content);
}

export function checksumElement(checksum: Checksum): string {
  return `<checksum algorithm="${escapeAttr(checksum.algorithm)}">${escapeText(checksum.value)}</checksum>`;
}

export function mediaTypeElement(mediaType: MediaType): string {
  let out = `<mediaType${attr("name", mediaType.name)}>`;
  for (const p of mediaType.properties)
    out += `<property${attr("name", p.name)}>${escapeText(p.value)}</property>`;
  return `${out}</mediaType>`;
}

/** Read a v1 or v2.0 systemMetadata document; any deviation from the XSD is InvalidSystemMetadata. */
export function parseSystemMetadata(xml: string | Buffer): SystemMetadata {
  const fail = InvalidSystemMetadata;
  const root = parseXml(xml, fail);
  expectRoot(root, "systemMetadata", [NS_V1, NS_V2], fail);
  const v2 = root.namespace === NS_V2;
  const r = new Reader(root, "systemMetadata", v2 ? V2_SEQUENCE : V1_SEQUENCE, fail);
  const path = (name: string) => `systemMetadata/${name}`;
  const id = (name: string, value: string) => checkIdentifier(value, path(name), fail);
  const text = (name: string) => nonEmpty(requiredText(r, name), path(name), fail);
  const optional = (name: string) => {
    const value = optionalText(r, name);
    return value === undefined ? undefined : nonEmpty(value, path(name), fail);
  };
  const optionalDate = (name: string) => {
    const value = optionalText(r, name);
    return value === undefined ? undefined : parseDate(value, path(name), fail);
  };

  const serialVersion = optionalText(r, "serialVersion");
  const sm: SystemMetadata = {
    ...(serialVersion !== undefined
      ? { serialVersion: parseInteger(serialVersion, path("serialVersion"), fail) }
      : {}),
    identifier: id("identifier", requiredText(r, "identifier")),
    formatId: text("formatId"),
    size: parseInteger(requiredText(r, "size"), path("size"), fail),
    checksum: readChecksum(r.required("checksum"), path("checksum"), fail),
    rightsHolder: "",
    accessPolicy: [],
    replicas: [],
  };
  const submitter = optional("submitter");
  if (submitter !== undefined) sm.submitter = submitter;
  sm.rightsHolder = text("rightsHolder");
  const access = r.optional("accessPolicy");
  if (access) sm.accessPolicy = readAccessPolicy(access, path("accessPolicy"), fail);
  const replication = r.optional("replicationPolicy");
  if (replication) sm.replicationPolicy = readReplicationPolicy(replication, path("replicationPolicy"), fail);
  const obsoletes = optionalText(r, "obsoletes");
  if (obsoletes !== undefined) sm.obsoletes = id("obsoletes", obsoletes);
  const obsoletedBy = optionalText(r, "obsoletedBy");
  if (obsoletedBy !== undefined) sm.obsoletedBy = id("obsoletedBy", obsoletedBy);
  const archived = optionalText(r, "archived");
  if (archived !== undefined) sm.archived = parseBoolean(archived, path("archived"), fail);
  const dateUploaded = optionalDate("dateUploaded");
  if (dateUploaded) sm.dateUploaded = dateUploaded;
  const modified = optionalDate("dateSysMetadataModified");
  if (modified) sm.dateSysMetadataModified = modified;
  const origin = optional("originMemberNode");
  if (origin !== undefined) sm.originMemberNode = origin;
  const authoritative = optional("authoritativeMemberNode");
  if (authoritative !== undefined) sm.authoritativeMemberNode = authoritative;
  sm.replicas = r.many("replica").map((replica) => readReplica(replica, path("replica"), fail));
  if (v2) {
    const seriesId = optionalText(r, "seriesId");
    if (seriesId !== undefined) sm.seriesId = id("seriesId", seriesId);
    const mediaType = r.optional("mediaType");
    if (mediaType) sm.mediaType = readMediaType(mediaType, path("mediaType"), fail);
    const fileName = optionalText(r, "fileName");
    if (fileName !== undefined) sm.fileName = fileName;
  }
  r.end();
  return sm;
}

/** Known digest lengths, in hex digits; other algorithm names are accepted with any hex value. */
const HEX_LENGTH: Record<string, number> = {
  MD5: 32,
  "SHA-1": 40,
  "SHA-256": 64,
  "SHA-384": 96,
  "SHA-512": 128,
};

/** Checksum: a hex value with a required "algorithm" attribute; the value is normalised to lower case. */
export function readChecksum(element: XmlElement, path: string, fail: ErrorClass): Checksum {
  const algorithm = requiredAttr(element, "algorithm", path, fail).trim();
  if (algorithm === "") throw new fail(`Attribute ${path}/@algorithm must not be empty.`);
  const value = textOf(element, path, fail, ["algorithm"]).trim();
  if (!/^[0-9a-fA-F]+$/.test(value))
    throw new fail(`<${path}> must be a hexadecimal digest, not "${value.slice(0, 60)}".`);
  const length = HEX_LENGTH[algorithm.toUpperCase()];
  if (length !== undefined && value.length !== length) {
    throw new fail(`<${path}> has ${value.length} hex digits; a ${algorithm} digest has ${length}.`);
  }
  return { algorithm, value: value.toLowerCase() };
}

export function readMediaType(element: XmlElement, path: string, fail: ErrorClass): MediaType {
  // MediaType: attribute "name" use="required"; "property minOccurs=0 maxOccurs=unbounded".
  const reader = new Reader(element, path, ["property"], fail, ["name"]);
  const name = nonEmpty(requiredAttr(element, "name", path, fail), `${path}/@name`, fail);
  const properties = reader.many("property").map((p) => {
    const value = textOf(p, `${path}/property`, fail, ["name"]);
    return { name: requiredAttr(p, "name", `${path}/property`, fail), value };
  });
  reader.end();
  return { name, properties };
}
