/**
 * Resumable uploads in progress (table `uploads`, migration 0023): what every process of the node needs to serve
 * any request of any upload (its owner, declared size, bytes received, creation time, tus metadata and where its
 * bytes stand in the store), whichever process made it.
 */
import type { Kysely } from "kysely";
import type { Tables } from "./schema.ts";

export interface UploadRecord {
  /** 32 lower-case hex digits (src/uploads/upload-id.ts). */
  id: string;
  owner: string;
  /** Declared length; undefined while deferred. */
  size: number | undefined;
  /** Bytes received so far: the tus offset. */
  received: number;
  createdMs: number;
  /** The tus metadata and the store's own notes on the bytes (JSON). */
  state: Record<string, unknown>;
}

export interface UploadTotals {
  uploads: number;
  /** Bytes received by the unfinished uploads. */
  bytes: number;
}

export interface UploadRecords {
  insert(record: UploadRecord): Promise<void>;
  get(id: string): Promise<UploadRecord | undefined>;
  update(id: string, changes: Partial<Pick<UploadRecord, "size" | "received" | "state">>): Promise<void>;
  remove(id: string): Promise<void>;
  /** Ids of the uploads created before `ms` (epoch milliseconds). */
  createdBefore(ms: number): Promise<string[]>;
  countOwnedBy(owner: string): Promise<number>;
  /** The uploads not yet used up, and what they received. */
  totals(): Promise<UploadTotals>;
}

export function uploadRecords(db: Kysely<Tables>): UploadRecords {
  return {
    async insert(record) {
      await db
        .insertInto("uploads")
        .values({
          id: record.id,
          owner: record.owner,
          size: record.size ?? null,
          received: record.received,
          created_ms: record.createdMs,
          state: JSON.stringify(record.state),
        })
        .execute();
    },

    async get(id) {
      const row = await db.selectFrom("uploads").selectAll().where("id", "=", id).executeTakeFirst();
      if (!row) return undefined;
      return {
        id: row.id,
        owner: row.owner,
        size: row.size === null ? undefined : Number(row.size),
        received: Number(row.received),
        createdMs: Number(row.created_ms),
        state: JSON.parse(row.state) as Record<string, unknown>,
      };
    },

    async update(id, changes) {
      const values = {
        ...(changes.size !== undefined ? { size: changes.size } : {}),
        ...(changes.received !== undefined ? { received: changes.received } : {}),
        ...(changes.state !== undefined ? { state: JSON.stringify(changes.state) } : {}),
      };
      if (Object.keys(values).length === 0) return;
      await db.updateTable("uploads").set(values).where("id", "=", id).execute();
    },

    async remove(id) {
      await db.deleteFrom("uploads").where("id", "=", id).execute();
    },

    async createdBefore(ms) {
      const rows = await db.selectFrom("uploads").select("id").where("created_ms", "<", ms).execute();
      return rows.map((row) => row.id);
    },

    async countOwnedBy(owner) {
      const row = await db
        .selectFrom("uploads")
        .select((eb) => eb.fn.countAll<number>().as("n"))
        .where("owner", "=", owner)
        .executeTakeFirst();
      return Number(row?.n ?? 0);
    },

    async totals() {
      const row = await db
        .selectFrom("uploads")
        .select((eb) => [eb.fn.countAll<number>().as("uploads"), eb.fn.sum<number>("received").as("bytes")])
        .executeTakeFirst();
      return { uploads: Number(row?.uploads ?? 0), bytes: Number(row?.bytes ?? 0) };
    },
  };
}
