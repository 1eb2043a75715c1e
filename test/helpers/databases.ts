/**
 * One database conformance suite, run on both dialects: a fresh SQLite file and a fresh PostgreSQL database
 * (`d1node_test_<random>`, dropped afterwards). PostgreSQL is tested for real: when it is unreachable the
 * tests fail, unless D1NODE_TEST_PG=skip says to run the SQLite half alone.
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, describe } from "node:test";
import { type OpenOptions, openDatabase } from "../../src/db/index.ts";
import type { Database, StoredObject } from "../../src/db/types.ts";
import type { SystemMetadata } from "../../src/types/sysmeta.ts";
import { testDialects } from "./node.ts";
import { createTestPostgresDatabase } from "./postgres.ts";

export type DialectName = "sqlite" | "postgres";
/** A fresh, empty database; with `sameAs`, another handle on that database's storage. */
export type OpenTestDatabase = (sameAs?: Database) => Promise<Database>;

/** Run `fn` once per dialect inside a describe block named after it; everything opened is closed and dropped. */
export function forEachDialect(fn: (name: DialectName, open: OpenTestDatabase) => void): void {
  for (const name of testDialects()) {
    describe(name, () => {
      const cleanups: (() => Promise<void>)[] = [];
      const opened: Database[] = [];
      const locations = new WeakMap<Database, OpenOptions>();
      after(async () => {
        for (const db of opened) await db.close();
        for (const cleanup of cleanups) await cleanup();
      });
      const open: OpenTestDatabase = async (sameAs) => {
        let options = sameAs ? locations.get(sameAs) : undefined;
        if (!options) options = await freshLocation(name, cleanups);
        const db = await openDatabase(options);
        locations.set(db, options);
        opened.push(db);
        return db;
      };
      fn(name, open);
    });
  }
}

async function freshLocation(name: DialectName, cleanups: (() => Promise<void>)[]): Promise<OpenOptions> {
  if (name === "postgres") {
    const pg = await createTestPostgresDatabase();
    cleanups.push(pg.drop);
    return { url: pg.url };
  }
  const dir = await mkdtemp(path.join(tmpdir(), "d1node-db-"));
  cleanups.push(() => rm(dir, { recursive: true, force: true }));
  return { sqlitePath: path.join(dir, "test.sqlite") };
}

/** A complete stored object; dates default to a fixed instant plus `offsetMs`. */
export function storedObject(
  pid: string,
  overrides: Partial<SystemMetadata> = {},
  offsetMs = 0,
): StoredObject {
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
      accessPolicy: [{ subjects: ["public"], permissions: ["read"] }],
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

/** The instant storedObject dates an object at. */
export const dateAt = (offsetMs: number): Date => new Date(Date.UTC(2026, 0, 1) + offsetMs);
