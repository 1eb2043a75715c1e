/**
 * Rewriting an index entry on both dialects: the new document replaces the old one as a whole (no value, term or
 * stored field of the old one is left, unchanged values stay), in a batch as well, and two writers of the same
 * pid at once leave one of the two documents whole, never a mix.
 */
import assert from "node:assert/strict";
import { before, describe, it } from "node:test";
import type { Database } from "../../../src/db/types.ts";
import { search } from "../../../src/search/answers/search.ts";
import { SolrParams } from "../../../src/search/query/params.ts";
import { parseSearchRequest } from "../../../src/search/query/parse-request.ts";
import { DocumentBuilder } from "../../../src/search/schema/document.ts";
import { writeDocument, writeDocuments } from "../../../src/search/store/index-store.ts";
import { forEachDialect } from "../../helpers/db/databases.ts";
import { searchIndexOf } from "../../helpers/db/search-index.ts";

interface Version {
  keywords: string[];
  size: number;
  title: string;
}

function entry(pid: string, v: Version) {
  const sysmeta = new DocumentBuilder()
    .add("id", pid)
    .add("formatType", "METADATA")
    .add("size", v.size)
    .add("readPermission", "public")
    .add("isPublic", true).fields;
  const science = new DocumentBuilder().add("title", v.title).add("keywords", ...v.keywords).fields;
  return { pid, sysmeta, science };
}

forEachDialect((dialect, open) => {
  describe(`index rewrites (${dialect})`, () => {
    let db: Database;
    const run = (params: Record<string, string>) =>
      search(searchIndexOf(db), parseSearchRequest(SolrParams.from(params)), "all");
    const found = async (q: string) => (await run({ q, rows: "10", sort: "id asc" })).docs.map((d) => d.id);
    /** What the index holds for `pid`: stored fields and the keyword facet of that document alone. */
    const held = async (pid: string) => {
      const result = await run({
        q: `id:${pid}`,
        fl: "id,keywords,size,title",
        facet: "true",
        "facet.field": "keywords",
        "facet.mincount": "1",
      });
      return { docs: result.docs, facet: result.facets?.facet_fields?.keywords };
    };
    before(async () => {
      db = await open();
    });

    it("a rewrite leaves nothing of the old document and keeps what did not change", async () => {
      await writeDocument(
        db,
        "r-1",
        ...fields("r-1", { keywords: ["alpha", "beta"], size: 10, title: "Old soil" }),
      );
      await writeDocument(
        db,
        "r-1",
        ...fields("r-1", { keywords: ["beta", "gamma"], size: 20, title: "New water" }),
      );
      assert.deepEqual(await found("keywords:alpha"), []);
      assert.deepEqual(await found("keywords:beta"), ["r-1"]);
      assert.deepEqual(await found("keywords:gamma"), ["r-1"]);
      assert.deepEqual(await found("size:10"), []);
      assert.deepEqual(await found("size:[15 TO 25]"), ["r-1"]);
      assert.deepEqual(await found("title:soil"), []);
      assert.deepEqual(await found("title:water"), ["r-1"]);
      assert.deepEqual(await held("r-1"), {
        docs: [{ id: "r-1", keywords: ["beta", "gamma"], size: 20, title: "New water" }],
        facet: ["beta", 1, "gamma", 1],
      });
    });

    it("a batch replaces existing documents and adds new ones in one write", async () => {
      await writeDocuments(db, [
        entry("r-2", { keywords: ["epsilon"], size: 1, title: "Two" }),
        entry("r-3", { keywords: ["delta"], size: 2, title: "Three" }),
      ]);
      await writeDocuments(db, [
        entry("r-2", { keywords: ["zeta"], size: 3, title: "Two again" }),
        entry("r-4", { keywords: ["delta", "zeta"], size: 4, title: "Four" }),
      ]);
      assert.deepEqual(await found("keywords:delta"), ["r-3", "r-4"]);
      assert.deepEqual(await found("keywords:epsilon"), []);
      assert.deepEqual(await found("keywords:zeta"), ["r-2", "r-4"]);
      assert.deepEqual(await found("title:again"), ["r-2"]);
    });

    it("a batch rewriting the newest document and adding another keeps both whole", async () => {
      await writeDocument(
        db,
        ...fieldsOf(entry("r-newest", { keywords: ["eta"], size: 7, title: "Newest" })),
      );
      await writeDocuments(db, [
        entry("r-newest", { keywords: ["theta"], size: 8, title: "Newest again" }),
        entry("r-after", { keywords: ["iota"], size: 9, title: "After" }),
      ]);
      assert.deepEqual(await found("keywords:eta"), []);
      assert.deepEqual(await found("keywords:theta AND title:newest"), ["r-newest"]);
      assert.deepEqual(await found("keywords:iota AND title:after"), ["r-after"]);
    });

    it("two writers of the same pid at once leave one whole document", async () => {
      const a: Version = { keywords: ["left", "shared"], size: 5, title: "Left side" };
      const b: Version = { keywords: ["right", "shared", "extra"], size: 6, title: "Right side" };
      const whole = (pid: string, v: Version) => ({
        docs: [{ id: pid, keywords: v.keywords, size: v.size, title: v.title }],
        facet: [...v.keywords].sort().flatMap((k) => [k, 1]),
      });
      for (let round = 0; round < 8; round++) {
        // Even rounds start from a new pid (both writers insert), odd rounds from an existing one.
        const pid = `race-${Math.floor(round / 2)}`;
        await Promise.all([
          writeDocument(db, pid, ...fields(pid, a)),
          writeDocument(db, pid, ...fields(pid, b)),
        ]);
        const now = await held(pid);
        const expected = [whole(pid, a), whole(pid, b)];
        assert.ok(
          expected.some((w) => JSON.stringify(w) === JSON.stringify(now)),
          `round ${round}: ${JSON.stringify(now)}`,
        );
      }
    });
  });
});

function fieldsOf(e: ReturnType<typeof entry>) {
  return [e.pid, e.sysmeta, e.science] as const;
}

function fields(pid: string, v: Version) {
  const { sysmeta, science } = entry(pid, v);
  return [sysmeta, science] as const;
}
