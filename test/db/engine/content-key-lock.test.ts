/**
 * Two processes on one PostgreSQL database and one store (here: two database handles, two store handles on one
 * folder and two in-process mutexes, as two processes have): a removal of bytes, or the start-up collection of
 * blob intents, racing a commit of the same bytes by the other never removes bytes the new object references.
 * The commit is held open right before its row is inserted; the other side must be seen waiting for the
 * content-key lock (a PostgreSQL advisory lock not granted) before the commit goes on.
 */
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { Readable } from "node:stream";
import { text } from "node:stream/consumers";
import { after, before, describe, it } from "node:test";
import { sql } from "kysely";
import type { Database } from "../../../src/db/types.ts";
import { IMPORT_FOLLOWS_NOTHING } from "../../../src/import/write.ts";
import { createContentLocks } from "../../../src/objects/content-locks.ts";
import type { ObjectWriteContext } from "../../../src/objects/context.ts";
import { ingest, recoverStore, removeObject } from "../../../src/objects/ingest.ts";
import { createFsStore } from "../../../src/store/index.ts";
import type { StagedObject } from "../../../src/store/types.ts";
import { storedSysmeta, uniquePid } from "../../helpers/data/sysmeta.ts";
import { forEachDialect } from "../../helpers/db/databases.ts";
import { eventually } from "../../helpers/time/eventually.ts";

forEachDialect((name, open) => {
  if (name !== "postgres") return; // SQLite belongs to one process: its in-process mutex is the whole lock.
  describe("content-key lock across processes", () => {
    let dir: string;
    let first: ObjectWriteContext;
    let second: ObjectWriteContext;
    before(async () => {
      dir = await mkdtemp(path.join(tmpdir(), "d1node-content-lock-"));
      const processOn = async (db: Database): Promise<ObjectWriteContext> => ({
        db,
        store: await createFsStore(path.join(dir, "store")),
        contentLocks: createContentLocks(db),
        changes: IMPORT_FOLLOWS_NOTHING,
      });
      const db = await open();
      first = await processOn(db);
      second = await processOn(await open(db));
    });
    after(() => rm(dir, { recursive: true, force: true }));

    const stage = (ctx: ObjectWriteContext, content: string) => ctx.store.stage(Readable.from([content]));
    const store = async (
      ctx: ObjectWriteContext,
      pid: string,
      staged: StagedObject,
      beforeRow?: { reached(): void; gate: Promise<void> },
    ) =>
      ingest(ctx, "client", staged, async (tx, contentKey) => {
        beforeRow?.reached();
        await beforeRow?.gate;
        const { size, sha256 } = staged.digests;
        const sysmeta = storedSysmeta(pid, { size, checksum: { algorithm: "SHA-256", value: sha256 } });
        await tx.objects.insert({ sysmeta, contentKey, digests: staged.digests, isReplica: false });
      });
    /** Some process waits for an advisory lock it has not been granted. */
    const someoneWaits = () =>
      eventually("another process waits for the content key", async () => {
        const { rows } = await sql<{ waiting: number }>`
          select count(*)::int as waiting from pg_locks where locktype = 'advisory' and not granted`.execute(
          first.db.kysely,
        );
        return rows[0] && rows[0].waiting > 0 ? true : undefined;
      });
    /**
     * A commit of `content` by `ctx` held before its row is inserted, until `release()`. Resolves once the commit
     * is held there, inside its transaction, holding the content key (else the other side could take it first).
     */
    const heldCommit = async (ctx: ObjectWriteContext, pid: string, content: string) => {
      let release = () => {};
      const gate = new Promise<void>((resolve) => {
        release = resolve;
      });
      let reached = () => {};
      const held = new Promise<void>((resolve) => {
        reached = resolve;
      });
      const done = store(ctx, pid, await stage(ctx, content), { reached, gate });
      await Promise.race([held, done]);
      return { release, done };
    };
    const bytesOf = async (ctx: ObjectWriteContext, pid: string) => {
      const object = await ctx.db.objects.get(pid);
      assert.ok(object, `${pid} is stored`);
      return text(ctx.store.read(object.contentKey));
    };

    it("a delete of the last object with some bytes waits for the other process's commit of them", async () => {
      const content = `shared content ${uniquePid()}\n`;
      const old = uniquePid("old");
      await store(first, old, await stage(first, content));
      const renewed = uniquePid("new");
      const commit = await heldCommit(second, renewed, content);
      const oldObject = await first.db.objects.get(old);
      assert.ok(oldObject);
      const removal = removeObject(first, "client", oldObject);
      await someoneWaits();
      commit.release();
      await Promise.all([commit.done, removal]);
      assert.equal(await first.db.objects.get(old), undefined);
      assert.equal(await bytesOf(first, renewed), content);
      assert.deepEqual(await first.db.blobIntents.list(), []);
    });

    it("start-up collection of blob intents waits for the other process's commit", async () => {
      const content = `collected? ${uniquePid()}\n`;
      const pid = uniquePid("fresh");
      const commit = await heldCommit(second, pid, content);
      // The commit's intent is recorded while it holds the key; the collection must read the count after it.
      await eventually("the intent is recorded", async () =>
        (await first.db.blobIntents.list()).length > 0 ? true : undefined,
      );
      const collection = recoverStore(first);
      await someoneWaits();
      commit.release();
      await commit.done;
      assert.equal((await collection).orphans, 0);
      assert.equal(await bytesOf(first, pid), content);
      assert.equal(
        createHash("sha256").update(content).digest("hex"),
        (await first.db.objects.get(pid))?.contentKey,
      );
    });
  });
});
