/** Upload records in memory (src/db/upload-records.ts), for unit tests of the uploads' stores. */
import type { UploadRecord, UploadRecords } from "../../../src/db/upload-records.ts";

export function memoryUploadRecords(): UploadRecords {
  const rows = new Map<string, UploadRecord>();
  return {
    async insert(record) {
      if (rows.has(record.id)) throw new Error(`upload ${record.id} exists`);
      rows.set(record.id, structuredClone(record));
    },
    async get(id) {
      const row = rows.get(id);
      return row ? structuredClone(row) : undefined;
    },
    async update(id, changes) {
      const row = rows.get(id);
      if (row) rows.set(id, { ...row, ...structuredClone(changes) });
    },
    async remove(id) {
      rows.delete(id);
    },
    async createdBefore(ms) {
      return [...rows.values()].filter((row) => row.createdMs < ms).map((row) => row.id);
    },
    async countOwnedBy(owner) {
      return [...rows.values()].filter((row) => row.owner === owner).length;
    },
    async totals() {
      const all = [...rows.values()];
      return { uploads: all.length, bytes: all.reduce((sum, row) => sum + row.received, 0) };
    },
  };
}
