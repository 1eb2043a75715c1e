/** StoredObject <-> objects row. */

import { grantsOf } from "../../auth/readers.ts";
import { dateWithMicroseconds, microsecondsOf } from "../../types/datetime.ts";
import type { Replica } from "../../types/sysmeta.ts";
import type { AccessRulesTable, ObjectsTable } from "../schema.ts";
import type { ObjectInfo, StoredObject } from "../types.ts";

export function toRow(object: StoredObject): ObjectsTable {
  const { sysmeta: s, digests: d } = object;
  return {
    pid: s.identifier,
    sid: s.seriesId ?? null,
    format_id: s.formatId,
    size: s.size,
    checksum_algorithm: s.checksum.algorithm,
    checksum_value: s.checksum.value,
    md5: d.md5,
    sha1: d.sha1,
    sha256: d.sha256,
    extra_algorithm: d.extra?.algorithm ?? null,
    extra_value: d.extra?.value ?? null,
    content_key: object.contentKey,
    submitter: s.submitter ?? null,
    rights_holder: s.rightsHolder,
    access_policy: JSON.stringify(s.accessPolicy),
    replication_policy: s.replicationPolicy ? JSON.stringify(s.replicationPolicy) : null,
    obsoletes: s.obsoletes ?? null,
    obsoleted_by: s.obsoletedBy ?? null,
    archived: s.archived ? 1 : 0,
    date_uploaded: (s.dateUploaded ?? new Date()).getTime(),
    date_modified: (s.dateSysMetadataModified ?? new Date()).getTime(),
    date_uploaded_us: microsecondsOf(s.dateUploaded),
    date_modified_us: microsecondsOf(s.dateSysMetadataModified),
    origin_mn: s.originMemberNode ?? null,
    authoritative_mn: s.authoritativeMemberNode ?? null,
    serial_version: s.serialVersion ?? 1,
    media_type: s.mediaType ? JSON.stringify(s.mediaType) : null,
    file_name: s.fileName ?? null,
    replicas: JSON.stringify(s.replicas.map((r) => ({ ...r, replicaVerified: r.replicaVerified.getTime() }))),
    is_replica: object.isReplica ? 1 : 0,
  };
}

export function fromRow(row: ObjectsTable): StoredObject {
  const replicas = (
    JSON.parse(row.replicas) as (Omit<Replica, "replicaVerified"> & { replicaVerified: number })[]
  ).map((r) => ({ ...r, replicaVerified: new Date(r.replicaVerified) }));
  return {
    contentKey: row.content_key,
    isReplica: row.is_replica === 1,
    digests: {
      size: Number(row.size),
      md5: row.md5,
      sha1: row.sha1,
      sha256: row.sha256,
      ...(row.extra_algorithm && row.extra_value
        ? { extra: { algorithm: row.extra_algorithm, value: row.extra_value } }
        : {}),
    },
    sysmeta: {
      serialVersion: Number(row.serial_version),
      identifier: row.pid,
      formatId: row.format_id,
      size: Number(row.size),
      checksum: { algorithm: row.checksum_algorithm, value: row.checksum_value },
      ...(row.submitter !== null ? { submitter: row.submitter } : {}),
      rightsHolder: row.rights_holder,
      accessPolicy: JSON.parse(row.access_policy),
      ...(row.replication_policy !== null ? { replicationPolicy: JSON.parse(row.replication_policy) } : {}),
      ...(row.obsoletes !== null ? { obsoletes: row.obsoletes } : {}),
      ...(row.obsoleted_by !== null ? { obsoletedBy: row.obsoleted_by } : {}),
      archived: row.archived === 1,
      dateUploaded: dateWithMicroseconds(Number(row.date_uploaded), Number(row.date_uploaded_us ?? 0)),
      dateSysMetadataModified: modifiedOf(row),
      ...(row.origin_mn !== null ? { originMemberNode: row.origin_mn } : {}),
      ...(row.authoritative_mn !== null ? { authoritativeMemberNode: row.authoritative_mn } : {}),
      replicas,
      ...(row.sid !== null ? { seriesId: row.sid } : {}),
      ...(row.media_type !== null ? { mediaType: JSON.parse(row.media_type) } : {}),
      ...(row.file_name !== null ? { fileName: row.file_name } : {}),
    },
  };
}

/** The columns an ObjectList entry needs. */
export const INFO_COLUMNS = [
  "pid",
  "format_id",
  "checksum_algorithm",
  "checksum_value",
  "date_modified",
  "date_modified_us",
  "size",
] as const;

/** dateSysMetadataModified: milliseconds (the list order's key) and the microseconds a source gave after them. */
const modifiedOf = (row: Pick<ObjectsTable, "date_modified" | "date_modified_us">) =>
  dateWithMicroseconds(Number(row.date_modified), Number(row.date_modified_us ?? 0));

export function toInfo(row: Pick<ObjectsTable, (typeof INFO_COLUMNS)[number]>): ObjectInfo {
  return {
    identifier: row.pid,
    formatId: row.format_id,
    checksum: { algorithm: row.checksum_algorithm, value: row.checksum_value },
    dateSysMetadataModified: modifiedOf(row),
    size: Number(row.size),
  };
}

/**
 * One row per subject that may read the object: the rights holder (who holds every permission) and each subject
 * the access policy grants something, with the strongest permission it holds (each implies read; the rule:
 * src/auth/readers.ts). The rules themselves, grouped as given, live in the objects row; these rows are what the
 * readableBy filters probe.
 */
export function accessRows(object: StoredObject): AccessRulesTable[] {
  const pid = object.sysmeta.identifier;
  const strongest = grantsOf(object.sysmeta);
  return Array.from(strongest, ([subject, permission]) => ({ pid, subject, permission }));
}
