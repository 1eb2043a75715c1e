/** A full database's storage told apart (src/db/engine/storage-full.ts), also after crossing from a rebuild's thread. */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { isStorageFull, storageFullMessage } from "../../../src/db/engine/storage-full.ts";
import { codeField, replyError } from "../../../src/search/rebuild/extract-messages.ts";

const withCode = (message: string, code: string) => Object.assign(new Error(message), { code });

describe("storage full", () => {
  it("is SQLite's SQLITE_FULL, PostgreSQL's disk_full and the system's ENOSPC, nothing else", () => {
    assert.ok(isStorageFull(withCode("database or disk is full", "SQLITE_FULL")));
    assert.ok(
      isStorageFull(withCode('could not extend file "base/16384/2619": No space left on device', "53100")),
    );
    assert.ok(isStorageFull(withCode("no space left on device, write", "ENOSPC")));
    assert.ok(!isStorageFull(withCode("UNIQUE constraint failed", "SQLITE_CONSTRAINT_PRIMARYKEY")));
    assert.ok(!isStorageFull(new Error("database or disk is full")), "the code decides, not the words");
    assert.ok(!isStorageFull(undefined));
  });

  it("keeps its code across a thread's reply", () => {
    const error = withCode("database or disk is full", "SQLITE_FULL");
    const reply = { id: 1, error: error.message, ...codeField(error) };
    const again = replyError(structuredClone(reply));
    assert.ok(isStorageFull(again));
    assert.equal(again.message, "database or disk is full");
    assert.equal(codeField(new Error("other")).code, undefined);
    assert.match(
      storageFullMessage(again),
      /^the database's storage is full \(database or disk is full\): free space/,
    );
  });
});
