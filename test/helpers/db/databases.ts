/**
 * One database conformance suite, run on both dialects: a fresh SQLite file and a fresh PostgreSQL database
 * (`d1node_test_<random>`, dropped afterwards). PostgreSQL is tested for real: when it is unreachable the
 * tests fail, unless D1NODE_TEST_PG=skip says to run the SQLite half alone.
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, describe } from "node:test";
import type { Database } from "../../../src/db/types.ts";
import { type NodeDatabaseOptions, openNodeDatabase } from "../../../src/node/open-database.ts";
import { testDialects } from "../nodes/node.ts";
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
      const locations = new WeakMap<Database, NodeDatabaseOptions>();
      after(async () => {
        for (const db of opened) await db.close();
        for (const cleanup of cleanups) await cleanup();
      });
      const open: OpenTestDatabase = async (sameAs) => {
        let options = sameAs ? locations.get(sameAs) : undefined;
        if (!options) options = await freshLocation(name, cleanups);
        const db = await openNodeDatabase(options);
        locations.set(db, options);
        opened.push(db);
        return db;
      };
      fn(name, open);
    });
  }
}

async function freshLocation(
  name: DialectName,
  cleanups: (() => Promise<void>)[],
): Promise<NodeDatabaseOptions> {
  if (name === "postgres") {
    const pg = await createTestPostgresDatabase();
    cleanups.push(pg.drop);
    return { url: pg.url };
  }
  const dir = await mkdtemp(path.join(tmpdir(), "d1node-db-"));
  cleanups.push(() => rm(dir, { recursive: true, force: true }));
  return { sqlitePath: path.join(dir, "test.sqlite") };
}
