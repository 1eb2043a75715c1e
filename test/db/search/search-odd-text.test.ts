/**
 * Text the database cannot hold as it is: a lone UTF-16 surrogate (from a broken extraction) does not fail its
 * document. The stored fields keep it (JSON escapes it); as a field value it is written as U+FFFD, as pg's text
 * parameters always did (src/search/store/postgres-write.ts).
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { searchRepository } from "../../../src/search/store/index.ts";
import { forEachDialect } from "../../helpers/db/databases.ts";

forEachDialect((dialect, open) => {
  describe(`odd text in the index (${dialect})`, () => {
    it("writes a document holding a lone surrogate", async () => {
      const db = await open();
      const sysmeta = new Map([["id", ["odd-1"]]]);
      await searchRepository(db).writeDocument(
        "odd-1",
        sysmeta,
        new Map([["title", ["broken \ud800 title"]]]),
      );
      await searchRepository(db).writeDocuments([
        { pid: "odd-2", sysmeta: new Map([["id", ["odd-2"]]]), science: new Map([["title", ["plain"]]]) },
      ]);
      const stored = await searchRepository(db).readStoredDocs(["odd-1", "odd-2"]);
      assert.equal(stored.get("odd-1")?.title, "broken \ud800 title");
      assert.equal(stored.get("odd-2")?.title, "plain");
    });
  });
});
