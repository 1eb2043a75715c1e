/**
 * "Readable by these subjects" has one definition (src/auth/readers.ts) and four encodings: the access function,
 * the list filters' SQL over access rows (both plans of the object list, and the event log), the list caches'
 * predicate, and the search's SQL over the index's access fields. Random policies x random callers, on both
 * databases: every encoding picks exactly the objects the access function allows.
 */
import assert from "node:assert/strict";
import { before, describe, it } from "node:test";
import { isAllowed, readFilter } from "../../../src/auth/access.ts";
import { anonymousSession, type Session, sessionFor } from "../../../src/auth/session.ts";
import { loadFormatRegistry } from "../../../src/context/formats.ts";
import { objectIncludes } from "../../../src/db/lists/filters.ts";
import type { Database, StoredObject } from "../../../src/db/types.ts";
import { searchUncached } from "../../../src/search/answers/search.ts";
import { searchCaller } from "../../../src/search/answers/service.ts";
import { indexStoredObjects } from "../../../src/search/indexing/indexer.ts";
import { SolrParams } from "../../../src/search/query/params.ts";
import { parseSearchRequest } from "../../../src/search/query/parse-request.ts";
import type { ObjectStore } from "../../../src/store/types.ts";
import type { AccessRule, Permission } from "../../../src/types/sysmeta.ts";
import { storedObject } from "../../helpers/data/sysmeta.ts";
import { forEachDialect } from "../../helpers/db/databases.ts";
import { searchIndexOf } from "../../helpers/db/search-index.ts";

const SUBJECTS = ["public", "authenticatedUser", "CN=a", "CN=b", "CN=c", "CN=group", "CN=owner", "CN=admin"];
const PERMISSIONS: Permission[] = ["read", "write", "changePermission"];
const ROLES = { adminSubjects: ["CN=admin"], cnSubjects: ["CN=cn"] };

/** A small seeded generator (mulberry32), so a failure names a case that can be run again. */
function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function someOf<T>(next: () => number, items: readonly T[], most: number): T[] {
  const count = Math.floor(next() * (most + 1));
  return Array.from({ length: count }, () => items[Math.floor(next() * items.length)] as T);
}

function randomPolicy(next: () => number): { rightsHolder: string; accessPolicy: AccessRule[] } {
  const accessPolicy = Array.from({ length: Math.floor(next() * 4) }, () => ({
    subjects: [...new Set(someOf(next, SUBJECTS, 3))],
    // An empty permission list grants nothing (every encoding must agree on that too).
    permissions: [...new Set(someOf(next, PERMISSIONS, 2))],
  })).filter((rule) => rule.subjects.length > 0);
  const rightsHolder = next() < 0.1 ? "public" : (SUBJECTS[2 + Math.floor(next() * 5)] as string);
  return { rightsHolder, accessPolicy };
}

function randomSession(next: () => number): Session {
  const roll = next();
  if (roll < 0.15) return anonymousSession();
  if (roll < 0.2) return sessionFor("CN=cn", ROLES);
  const [primary = "CN=a", ...more] = someOf(next, SUBJECTS.slice(2), 3);
  return sessionFor(primary, ROLES, more);
}

const fakeStore = {} as ObjectStore; // text/csv objects: the indexer reads no bytes

forEachDialect((_name, open) => {
  describe("readable by these subjects", () => {
    const next = random(20_260_115);
    const objects: StoredObject[] = Array.from({ length: 80 }, (_, n) =>
      storedObject(`readable-${String(n).padStart(2, "0")}`, randomPolicy(next), n),
    );
    const sessions = Array.from({ length: 40 }, () => randomSession(next));
    let db: Database;

    before(async () => {
      db = await open();
      await db.objects.insertMany(objects);
      for (const object of objects) {
        db.events.append({
          identifier: object.sysmeta.identifier,
          event: "read",
          ipAddress: "127.0.0.1",
          userAgent: "test",
          subject: "CN=s",
          dateLogged: new Date(Date.UTC(2026, 0, 1)),
          nodeIdentifier: "urn:node:TEST",
        });
      }
      await db.events.flush();
      await indexStoredObjects({ db, store: fakeStore, formats: loadFormatRegistry() }, objects);
    });

    it("gives the same objects through every encoding", async () => {
      const index = searchIndexOf(db);
      for (const [n, session] of sessions.entries()) {
        const label = `caller ${n}: ${[...session.subjects].join(", ")}${session.isCn ? " (CN)" : ""}`;
        const allowed = objects
          .filter((object) => isAllowed(session, "read", object.sysmeta))
          .map((object) => object.sysmeta.identifier);
        const readers = readFilter(session);
        const filter = readers === undefined ? {} : { readableBy: readers };

        const predicate = objectIncludes(filter);
        assert.deepEqual(
          objects.filter(predicate).map((o) => o.sysmeta.identifier),
          allowed,
          `list predicate, ${label}`,
        );
        const listed = await db.objects.list(filter, 0, 1000);
        assert.deepEqual(
          listed.items.map((item) => item.identifier),
          allowed,
          `object list SQL, ${label}`,
        );
        assert.equal(listed.total, allowed.length, `object list count, ${label}`);
        const narrowed = await db.objects.list({ ...filter, formatId: "text/csv" }, 0, 1000);
        assert.deepEqual(
          narrowed.items.map((item) => item.identifier),
          allowed,
          `object list SQL with another filter, ${label}`,
        );
        const logged = await db.events.list(filter, 0, 1000);
        assert.deepEqual(
          logged.items.map((entry) => entry.identifier).sort(),
          allowed,
          `event log SQL, ${label}`,
        );
        const params = SolrParams.from({ q: "*:*", rows: "1000", sort: "id asc", fl: "id" });
        const found = await searchUncached(index, parseSearchRequest(params), searchCaller(session));
        assert.deepEqual(
          found.docs.map((doc) => doc.id),
          allowed,
          `search SQL, ${label}`,
        );
      }
    });

    it("draws callers who read some, all and none of the objects", () => {
      const counts = sessions.map((s) => objects.filter((o) => isAllowed(s, "read", o.sysmeta)).length);
      assert.ok(counts.some((c) => c === objects.length));
      assert.ok(counts.some((c) => c > 0 && c < objects.length));
    });
  });
});
