/**
 * SQLite's durable commits (src/db/engine/durable-commits.ts): a write returns once its commit's log is flushed; a
 * flush that fails fails the write and every later one, reads go on. (The power cut itself:
 * test/e2e/faults/power-cut.test.ts.)
 */
import assert from "node:assert/strict";
import { mkdtemp, rm, symlink, unlink } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, describe, it } from "node:test";
import { openNodeDatabase } from "../../../src/node/open-database.ts";

describe("durable commits (SQLite)", () => {
  let dir: string | undefined;
  after(async () => {
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it("concurrent writes all return; a failed flush of the log fails that write and every later one", async () => {
    dir = await mkdtemp(path.join(tmpdir(), "d1node-durable-"));
    const file = path.join(dir, "d1node.sqlite");
    const db = await openNodeDatabase({ sqlitePath: file });
    try {
      await Promise.all(Array.from({ length: 20 }, (_, i) => db.blobIntents.add(`key-${i}`)));
      assert.equal((await db.blobIntents.list()).length, 20);

      // SQLite keeps writing its open log; the name no longer opens (ELOOP), as a failing disk would answer.
      const wal = `${file}-wal`;
      await unlink(wal);
      await symlink(path.basename(wal), wal);
      await assert.rejects(db.blobIntents.add("after-failure"), /could not be flushed to disk/);
      await assert.rejects(db.blobIntents.remove("key-0"), /no write is accepted until the node restarts/);
      assert.ok((await db.blobIntents.list()).includes("key-1"), "reads go on");
    } finally {
      await db.close();
    }
  });
});
