/** One database conformance suite, run on both dialects: a fresh SQLite file and a fresh PostgreSQL database. */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { openDatabase } from "../../src/db/index.ts";
import type { Database, StoredObject } from "../../src/db/types.ts";
import type { SystemMetadata } from "../../src/types/sysmeta.ts";
import { testDialects } from "./node.ts";
import { createTestPostgresDatabase } from "./postgres.ts";

export interface OpenedDatabase {
  db: Database;
  dispose(): Promise<void>;
}

export async function openTestDatabase(dialect: "sqlite" | "postgres"): Promise<OpenedDatabase> {
  if (dialect === "postgres") {
    const pg = await createTestPostgresDatabase();
    const db = await openDatabase({ url: pg.url });
    return {
      db,
      dispose: async () => {
        await db.close();
        await pg.drop();
      },
    };
  }
  const dir = await mkdtemp(path.join(tmpdir(), "d1node-db-"));
  const db = await openDatabase({ sqlitePath: path.join(dir, "test.sqlite") });
  return {
    db,
    dispose: async () => {
      await db.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
}

export { testDialects };

let counter = 0;

/** A complete stored object; dates default to a fixed instant plus `offsetMs`. */
export function storedObject(
  pid: string,
  overrides: Partial<SystemMetadata> = {},
  offsetMs = 0,
): StoredObject {
  counter++;
  const at = new Date(Date.UTC(2026, 0, 1) + offsetMs);
  return {
    contentKey: "a".repeat(64),
    isReplica: false,
    digests: { size: 3, md5: "m".repeat(32), sha1: "s".repeat(40), sha256: "a".repeat(64) },
    sysmeta: {
      serialVersion: 1,
      identifier: pid,
      formatId: "text/csv",
      size: 3,
      checksum: { algorithm: "SHA-1", value: "s".repeat(40) },
      submitter: "CN=submitter",
      rightsHolder: "CN=owner",
      accessPolicy: [{ subjects: ["public", `CN=reader-${counter}`], permissions: ["read"] }],
      archived: false,
      dateUploaded: at,
      dateSysMetadataModified: at,
      originMemberNode: "urn:node:TEST",
      authoritativeMemberNode: "urn:node:TEST",
      replicas: [],
      ...overrides,
    },
  };
}
