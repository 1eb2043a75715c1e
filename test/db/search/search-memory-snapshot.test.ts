/**
 * The engine's memory saved to a file and read at start in place of the database: a restored memory answers
 * as SQL alone does without reading anything the snapshot held; writes and removals made after the snapshot (on
 * PostgreSQL from another process) are in its answers; a torn, corrupt or other-version file is ignored with
 * one log line; a write that fails halfway leaves the old snapshot usable.
 */
import assert from "node:assert/strict";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import type { Database } from "../../../src/db/types.ts";
import { type SearchCaller, searchUncached } from "../../../src/search/answers/search.ts";
import { SNAPSHOT_VERSION } from "../../../src/search/memory/snapshot/snapshot-codec.ts";
import { writeSnapshotFile } from "../../../src/search/memory/snapshot/snapshot-file.ts";
import { SolrParams } from "../../../src/search/query/params.ts";
import { parseSearchRequest } from "../../../src/search/query/parse-request.ts";
import { DocumentBuilder } from "../../../src/search/schema/document.ts";
import { openSearchIndex, type SearchIndex } from "../../../src/search/search-index.ts";
import { removeDocument, writeDocuments } from "../../../src/search/store/index-store.ts";
import { forEachDialect } from "../../helpers/db/databases.ts";

const KEYWORDS = ["soil", "water", "ice", "carbon flux", "zebra"];

function doc(n: number, variant = 0) {
  const pid = `s-${String(n).padStart(4, "0")}`;
  const sysmeta = new DocumentBuilder()
    .add("id", pid)
    .add("formatType", n % 4 === 0 ? "DATA" : "METADATA")
    .add("dateUploaded", Date.UTC(2020, 0, 1) + ((n * 7919 + variant) % 150) * 86_400_000)
    .add("size", (n * 37 + variant) % 500)
    .add("readPermission", ...(n % 5 === 0 ? [] : ["public"]))
    .add("isPublic", n % 5 !== 0)
    .add("archived", n % 7 === 3).fields;
  const science = new DocumentBuilder()
    .add("keywords", KEYWORDS[(n + variant) % KEYWORDS.length], KEYWORDS[(n * 3) % KEYWORDS.length])
    .add("site", n % 4 === 0 ? undefined : `site-${(n + variant) % 3}`).fields;
  return { pid, sysmeta, science };
}

const FACETS = { facet: "true", "facet.field": ["keywords", "site", "formatType"], "facet.limit": "-1" };
const QUERIES: Record<string, string | string[]>[] = [
  { q: "*:*", rows: "20", sort: "dateUploaded desc", ...FACETS },
  { q: "formatType:METADATA", fq: "-site:site-1", rows: "15", sort: "size asc", ...FACETS },
  { q: "keywords:ice OR site:site-2", rows: "30", sort: "id desc" },
];
const CALLERS: SearchCaller[] = [{ subjects: new Set(["public"]) }, "all"];

async function answers(index: SearchIndex) {
  const out = [];
  for (const params of QUERIES) {
    for (const caller of CALLERS) {
      const result = await searchUncached(index, parseSearchRequest(SolrParams.from(params)), caller);
      out.push({ numFound: result.numFound, ids: result.docs.map((d) => d.id), facets: result.facets });
    }
  }
  return out;
}

/** The same answers with the memory set aside: SQL alone. */
async function sqlAnswers(index: SearchIndex) {
  index.changes.trusted = false;
  try {
    return await answers(index);
  } finally {
    index.changes.trusted = true;
  }
}

forEachDialect((dialect, open) => {
  describe(`search memory snapshot (${dialect})`, () => {
    let dir: string;
    let first: Database;
    /** SQLite: the one handle open on the file (a node holds it exclusively); a restart closes it first. */
    let current: Database;
    let file: string;
    const warnings: string[] = [];
    const opened: SearchIndex[] = [];
    /** A node's engine over `db`: read in the background (the snapshot first), nothing warmed, nothing saved by itself. */
    const engine = (db: Database) => {
      const index = openSearchIndex(db, {
        backgroundFrom: 0,
        warm: async () => undefined,
        snapshot: { file, warn: (message) => warnings.push(message), saveAfter: 3_600_000 },
      });
      opened.push(index);
      return index;
    };
    /** A restarted node: another handle on the database, a new engine; its memory ready. */
    const restart = async () => {
      if (dialect === "sqlite") {
        for (const index of opened) index.close();
        await current.close();
      }
      current = await open(first);
      const index = engine(current);
      await index.prepare();
      return index;
    };
    const save = async (index: SearchIndex) => {
      const memory = index.memory();
      assert.ok(memory);
      await index.snapshots.save(memory);
    };

    before(async () => {
      dir = await mkdtemp(path.join(tmpdir(), "d1node-snapshot-"));
      file = path.join(dir, "search-memory.snapshot");
      first = await open();
      current = first;
      await writeDocuments(
        first,
        Array.from({ length: 300 }, (_, n) => doc(n)),
      );
      const index = engine(first);
      await index.prepare();
      await answers(index);
      await save(index);
    });

    after(async () => {
      for (const index of opened) index.close();
      await rm(dir, { recursive: true, force: true });
    });

    it("a restored memory answers as SQL alone does, reading nothing it held", async () => {
      const index = await restart();
      assert.equal(index.status().mode, "memory");
      const restored = await answers(index);
      assert.equal(index.status().rereads, 0, "every clause set and column came from the snapshot");
      assert.deepEqual(restored, await sqlAnswers(index));
      assert.deepEqual(warnings, []);
    });

    it("sees writes and removals made after the snapshot, by another process", async () => {
      // PostgreSQL: another process (handle); SQLite: the node itself, before it restarts.
      const other = dialect === "postgres" ? await open(first) : current;
      await writeDocuments(other, [doc(7, 2), doc(12, 4), doc(900), doc(901, 1)]);
      await removeDocument(other, doc(21).pid);
      await removeDocument(other, doc(22).pid);
      const index = await restart();
      const restored = await answers(index);
      assert.deepEqual(restored, await sqlAnswers(index));
      const found = await searchUncached(
        index,
        parseSearchRequest(SolrParams.from({ q: "id:s-0900 OR id:s-0021", rows: "5" })),
        "all",
      );
      assert.deepEqual(
        found.docs.map((d) => d.id),
        ["s-0900"],
      );
      // Saved again: the next restart starts from here, and agrees still.
      await save(index);
      const again = await restart();
      assert.deepEqual(await answers(again), await sqlAnswers(again));
      assert.equal(again.status().rereads, 0);
    });

    it("ignores a torn, corrupt or other-version snapshot with one log line", async () => {
      const good = await readFile(file);
      const corrupt = Buffer.from(good);
      const middle = Math.floor(corrupt.byteLength / 2);
      corrupt.writeUInt8(corrupt.readUInt8(middle) ^ 0xff, middle);
      const variants: [string, Buffer][] = [
        ["torn", good.subarray(0, Math.floor(good.byteLength * 0.6))],
        ["corrupt", corrupt],
        ["empty", Buffer.alloc(0)],
      ];
      for (const [label, bytes] of variants) {
        await writeFile(file, bytes);
        warnings.length = 0;
        const index = await restart();
        assert.equal(warnings.length, 1, label);
        assert.match(warnings[0] as string, /ignored/);
        assert.deepEqual(await answers(index), await sqlAnswers(index), label);
        assert.ok(index.status().rereads > 0, `${label}: read from the database`);
      }
      const other = path.join(dir, "other-version");
      await writeSnapshotFile(other, { version: SNAPSHOT_VERSION + 1 }, []);
      await writeFile(file, await readFile(other));
      warnings.length = 0;
      const index = await restart();
      assert.match(warnings.join("\n"), new RegExp(`version ${SNAPSHOT_VERSION + 1}`));
      assert.deepEqual(await answers(index), await sqlAnswers(index));
      await writeFile(file, good);
    });

    it("a write that fails halfway leaves the old snapshot usable", async () => {
      const before = await readFile(file);
      await assert.rejects(
        writeSnapshotFile(file, { version: SNAPSHOT_VERSION }, [
          () => new Uint8Array(1000),
          () => {
            throw new Error("crash while writing");
          },
        ]),
      );
      assert.deepEqual(await readFile(file), before);
      warnings.length = 0;
      const index = await restart();
      assert.deepEqual(warnings, []);
      assert.deepEqual(await answers(index), await sqlAnswers(index));
      assert.equal(index.status().rereads, 0);
    });

    it("ignores a snapshot too far behind (more changed since than a replay is worth)", async () => {
      await writeDocuments(
        current,
        Array.from({ length: 1100 }, (_, i) => doc(2000 + i)),
      );
      warnings.length = 0;
      const index = await restart();
      assert.equal(warnings.length, 1);
      assert.match(warnings[0] as string, /changed since/);
      assert.deepEqual(await answers(index), await sqlAnswers(index));
    });
  });
});
