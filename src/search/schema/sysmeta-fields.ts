/**
 * The system-metadata and access fields of a document, named as the DataONE indexer names them
 * (application-context-systemmeta200.xml): datasource is the origin Member Node, replicaMN the replica holders,
 * and each access subject goes to the field of the permission it is granted.
 */
import { isPublic } from "../../auth/readers.ts";
import type { FormatRegistry } from "../../types/format-registry.ts";
import type { Permission, SystemMetadata } from "../../types/sysmeta.ts";
import { DocumentBuilder, type SearchDocument } from "./document.ts";

/** The field each permission's subjects go to. */
export const PERMISSION_FIELD: Readonly<Record<Permission, string>> = {
  read: "readPermission",
  write: "writePermission",
  changePermission: "changePermission",
};

/**
 * The fields that, between them, name every subject holding a permission on the document (src/auth/readers.ts
 * grantsOf): a subject in one of them may read it.
 */
export const READER_FIELDS: readonly string[] = [...Object.values(PERMISSION_FIELD), "rightsHolder"];

export function sysmetaFields(sysmeta: SystemMetadata, formats: FormatRegistry): SearchDocument {
  const doc = new DocumentBuilder();
  const policy = sysmeta.replicationPolicy;
  doc
    .add("id", sysmeta.identifier)
    .add("seriesId", sysmeta.seriesId)
    .add("fileName", sysmeta.fileName)
    .add("mediaType", sysmeta.mediaType?.name)
    .add("mediaTypeProperty", ...(sysmeta.mediaType?.properties ?? []).map((p) => `${p.name}=${p.value}`))
    .add("formatId", sysmeta.formatId)
    .add("formatType", formats.get(sysmeta.formatId)?.formatType)
    .add("size", sysmeta.size)
    .add("checksum", sysmeta.checksum.value)
    .add("checksumAlgorithm", sysmeta.checksum.algorithm)
    .add("archived", sysmeta.archived === true)
    .add("dateUploaded", sysmeta.dateUploaded?.getTime())
    .add("dateModified", sysmeta.dateSysMetadataModified?.getTime())
    .add("submitter", sysmeta.submitter)
    .add("rightsHolder", sysmeta.rightsHolder)
    .add("authoritativeMN", sysmeta.authoritativeMemberNode)
    .add("datasource", sysmeta.originMemberNode)
    .add("obsoletes", sysmeta.obsoletes)
    .add("obsoletedBy", sysmeta.obsoletedBy)
    .add("replicationAllowed", policy?.replicationAllowed)
    .add("numberReplicas", policy?.numberReplicas)
    .add("preferredReplicationMN", ...(policy?.preferredMemberNodes ?? []))
    .add("blockedReplicationMN", ...(policy?.blockedMemberNodes ?? []))
    .add("replicaMN", ...sysmeta.replicas.map((r) => r.replicaMemberNode))
    .add("replicationStatus", ...sysmeta.replicas.map((r) => r.replicationStatus))
    .add("replicaVerifiedDate", ...sysmeta.replicas.map((r) => r.replicaVerified.getTime()));
  for (const rule of sysmeta.accessPolicy) {
    for (const permission of rule.permissions) doc.add(PERMISSION_FIELD[permission], ...rule.subjects);
  }
  doc.add("isPublic", isPublic(sysmeta));
  return doc.fields;
}
