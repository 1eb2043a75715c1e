/** Statements written once (src/db/fixed-sql.ts) on both dialects: placeholders, multi-row inserts, IN lists. */
import assert from "node:assert/strict";
import { before, describe, it } from "node:test";
import { FixedSql, insertRows, listSql } from "../../src/db/fixed-sql.ts";
import type { Database } from "../../src/db/types.ts";
import { forEachDialect } from "../helpers/databases.ts";

forEachDialect((_name, open) => {
  describe("fixed SQL", () => {
    let db: Database;
    before(async () => {
      db = await open();
    });

    it("inserts rows of one shape and reads them back by an IN list", async () => {
      const rows = [
        { pid: "fx-1", field: "f", value: "a", num: null },
        { pid: "fx-2", field: "f", value: "b", num: 2 },
        { pid: "fx-3", field: "g", value: "c", num: 3.5 },
      ];
      await insertRows(db.kysely, "search_values", ["pid", "field", "value", "num"], rows);
      const found = await listSql("select pid, value, num from search_values where pid in", 2).run<{
        pid: string;
        value: string;
        num: number | null;
      }>(db.kysely, ["fx-1", "fx-3"]);
      const byPid = new Map(found.rows.map((row) => [row.pid, row]));
      assert.equal(byPid.size, 2);
      assert.equal(byPid.get("fx-1")?.num, null);
      assert.equal(Number(byPid.get("fx-3")?.num), 3.5);
    });

    it("numbers its placeholders for the dialect and runs inside a transaction", async () => {
      const count = new FixedSql("select count(*) as n from search_values where pid = ? and field = ?");
      await db.kysely.transaction().execute(async (tx) => {
        await insertRows(
          tx,
          "search_values",
          ["pid", "field", "value", "num"],
          [{ pid: "fx-4", field: "h", value: "d", num: null }],
        );
        const inside = await count.first<{ n: number | string }>(tx, ["fx-4", "h"]);
        assert.equal(Number(inside?.n), 1);
      });
      const after = await count.first<{ n: number | string }>(db.kysely, ["fx-4", "h"]);
      assert.equal(Number(after?.n), 1);
    });

    it("inserts nothing for no rows", async () => {
      await insertRows(db.kysely, "search_values", ["pid", "field", "value", "num"], []);
    });
  });
});
