/**
 * An upload as tus sees it (`Upload`: id, size, offset, metadata, creation date) and as the database keeps it
 * (`UploadRecord`, src/db/upload-records.ts): the owner is the tus metadata key `owner`, which the node sets.
 */
import type { KvStore } from "@tus/utils";
import { Upload } from "@tus/utils";
import type { UploadRecord, UploadRecords } from "../db/upload-records.ts";

/** Upload metadata key holding the creator's subject (set by the node, whatever the client sent). */
export const OWNER_METADATA = "owner";

type Metadata = Record<string, string | null>;

/** The tus metadata a record keeps. */
export function metadataOf(record: UploadRecord): Metadata {
  return (record.state.metadata ?? {}) as Metadata;
}

/** The upload `record` describes, `offset` bytes received. */
export function uploadOf(record: UploadRecord, offset = record.received): Upload {
  return new Upload({
    id: record.id,
    size: record.size,
    offset,
    metadata: metadataOf(record),
    creation_date: new Date(record.createdMs).toISOString(),
  });
}

/** A new record of `upload` (nothing received yet), with the store's own `state` beside its metadata. */
export function recordOf(upload: Upload, state: Record<string, unknown> = {}): UploadRecord {
  const created = Date.parse(upload.creation_date ?? "");
  return {
    id: upload.id,
    owner: upload.metadata?.[OWNER_METADATA] ?? "",
    size: upload.size,
    received: upload.offset ?? 0,
    createdMs: Number.isNaN(created) ? Date.now() : created,
    state: { ...state, metadata: upload.metadata ?? {} },
  };
}

/** The file store's record of each upload (its `configstore`), kept in the database rather than beside the file. */
export function recordedConfigstore(records: UploadRecords): KvStore<Upload> {
  return {
    async get(id) {
      const record = await records.get(id);
      return record ? uploadOf(record) : undefined;
    },
    async set(id, upload) {
      const known = await records.get(id);
      if (known) await records.update(id, { size: upload.size });
      else await records.insert(recordOf(upload));
    },
    delete: (id) => records.remove(id),
  };
}
