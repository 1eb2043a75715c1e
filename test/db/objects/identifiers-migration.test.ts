/**
 * Migration 0010-identifiers on a database written before the rule, holding what racing writers left: two chains
 * under one SID, and a SID equal to another object's PID. The migration still runs; the SID goes to the newest
 * head, the PID keeps its identifier, and from then on the rule holds.
 */
import assert from "node:assert/strict";
import { it } from "node:test";
import { sql } from "kysely";
import { SeriesConflictError } from "../../../src/db/errors.ts";
import { toRow } from "../../../src/db/objects/rows.ts";
import type { Database } from "../../../src/db/types.ts";
import { storedObject } from "../../helpers/data/sysmeta.ts";
import { forEachDialect } from "../../helpers/db/databases.ts";

/** Rows as a node last migrated before 0010 holds them, written past the rule. */
async function writeBeforeTheRule(db: Database): Promise<void> {
  const k = db.kysely;
  await sql`drop table identifiers`.execute(k);
  await sql`delete from d1node_migrations where name = '0010-identifiers'`.execute(k);
  const rows = [
    storedObject("a-1", { seriesId: "S", obsoletedBy: "a-2" }, 1),
    storedObject("a-2", { seriesId: "S", obsoletes: "a-1" }, 2),
    // A second chain under S, its head uploaded last: the newest head.
    storedObject("b-1", { seriesId: "S" }, 5),
    storedObject("p-x", {}, 6),
    storedObject("q-1", { seriesId: "p-x" }, 7),
    storedObject("n-1", {}, 8),
  ].map(toRow);
  await k.insertInto("objects").values(rows).execute();
}

forEachDialect((_name, open) => {
  it("migrates a database holding duplicates: the newest head keeps the SID, the rule holds afterwards", async () => {
    const db = await open();
    await writeBeforeTheRule(db);
    await db.close();
    const migrated = await open(db);
    const objects = migrated.objects;
    assert.equal(await objects.headOfSeries("S"), "b-1");
    for (const id of ["a-1", "a-2", "b-1", "p-x", "q-1", "n-1", "S"]) {
      assert.equal(await objects.isIdentifierInUse(id), true, id);
    }
    // A SID that is also a PID stays the PID's.
    assert.equal(await objects.headOfSeries("p-x"), undefined);
    assert.equal((await objects.get("p-x"))?.sysmeta.identifier, "p-x");

    // The losing chain cannot continue S; the winning one can; a new chain cannot take it.
    await assert.rejects(
      objects.insert(storedObject("a-3", { seriesId: "S", obsoletes: "a-2" }, 9)),
      SeriesConflictError,
    );
    await assert.rejects(objects.insert(storedObject("c-1", { seriesId: "S" }, 9)), SeriesConflictError);
    await objects.insert(storedObject("b-2", { seriesId: "S", obsoletes: "b-1" }, 10));
    assert.equal(await objects.headOfSeries("S"), "b-2");
    assert.equal(await objects.get("a-3"), undefined);
    assert.equal(await objects.isIdentifierInUse("c-1"), false);
    // A new PID equal to a SID in use is refused like a PID in use.
    await assert.rejects(objects.insert(storedObject("S", {}, 11)));
  });
});
