/**
 * Concurrent transactions, one of them failing (a duplicate pid, a thrown error): the others commit, and nothing
 * of the failing one is stored. On both dialects.
 */
import assert from "node:assert/strict";
import { before, describe, it } from "node:test";
import { DuplicateKeyError } from "../../../src/db/index.ts";
import type { Database } from "../../../src/db/types.ts";
import { storedObject } from "../../helpers/data/sysmeta.ts";
import { forEachDialect } from "../../helpers/db/databases.ts";

forEachDialect((_name, open) => {
  describe("concurrent transactions, one failing", () => {
    let db: Database;
    before(async () => {
      db = await open();
    });

    it("fail only the one with a duplicate pid; nothing of it is stored", async () => {
      await db.objects.insert(storedObject("group-taken"));
      const write = (pid: string, key: string) =>
        db.transaction(async (tx) => {
          await tx.blobIntents.add(key);
          await tx.objects.insert(storedObject(pid));
        });
      const outcomes = await Promise.allSettled([
        write("group-a", "key-a"),
        write("group-b", "key-b"),
        write("group-taken", "key-taken"),
        write("group-c", "key-c"),
      ]);
      assert.deepEqual(
        outcomes.map((o) => o.status),
        ["fulfilled", "fulfilled", "rejected", "fulfilled"],
      );
      assert.ok((outcomes[2] as PromiseRejectedResult).reason instanceof DuplicateKeyError);
      for (const pid of ["group-a", "group-b", "group-c"]) assert.ok(await db.objects.get(pid), pid);
      assert.deepEqual((await db.blobIntents.list()).sort(), ["key-a", "key-b", "key-c"]);
      for (const key of ["key-a", "key-b", "key-c"]) await db.blobIntents.remove(key);
    });

    it("fail only the one that throws, after the others wrote", async () => {
      const outcomes = await Promise.allSettled([
        db.transaction((tx) => tx.objects.insert(storedObject("group-d"))),
        db.transaction(async (tx) => {
          await tx.objects.insert(storedObject("group-thrown"));
          throw new Error("refused");
        }),
        db.transaction((tx) => tx.objects.insert(storedObject("group-e"))),
      ]);
      assert.deepEqual(
        outcomes.map((o) => o.status),
        ["fulfilled", "rejected", "fulfilled"],
      );
      assert.equal(await db.objects.get("group-thrown"), undefined);
      assert.ok(await db.objects.get("group-d"));
      assert.ok(await db.objects.get("group-e"));
    });
  });
});
