/** Statements written once (src/db/engine/statement-texts.ts) on both dialects: placeholders, multi-row inserts, IN lists. */
import assert from "node:assert/strict";
import { before, describe, it } from "node:test";
import { FixedSql, insertRows, listSql } from "../../../src/db/engine/statement-texts.ts";
import type { Database } from "../../../src/db/types.ts";
import { forEachDialect } from "../../helpers/db/databases.ts";

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

    it("runs a prepared statement again and again, on any connection and in a transaction", async () => {
      await insertRows(
        db.kysely,
        "search_values",
        ["pid", "field", "value", "num"],
        [{ pid: "fx-5", field: "p", value: "e", num: 5 }],
      );
      const byPid = new FixedSql("select value from search_values where pid = ? and field = ?", {
        prepared: true,
      });
      // More runs at once than pooled connections, past PostgreSQL's switch to a generic plan (5 runs).
      const values = await Promise.all(
        Array.from({ length: 24 }, (_, i) =>
          byPid.first<{ value: string }>(db.kysely, [i % 2 ? "fx-5" : "none", "p"]),
        ),
      );
      assert.deepEqual(
        values.map((row) => row?.value),
        Array.from({ length: 24 }, (_, i) => (i % 2 ? "e" : undefined)),
      );
      await db.kysely.transaction().execute(async (tx) => {
        assert.equal((await byPid.first<{ value: string }>(tx, ["fx-5", "p"]))?.value, "e");
      });
    });

    it("inserts nothing for no rows", async () => {
      await insertRows(db.kysely, "search_values", ["pid", "field", "value", "num"], []);
    });
  });
});
