/**
 * The write path (ingest, removal, start-up recovery) keeps its guarantees whatever the store does: under the
 * fault-injecting decorator a refused or failed write leaves no row, no bytes and no intent; a failed removal
 * leaves an intent that recovery collects; a removal racing a create of the same content never loses the bytes.
 */
import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { it } from "node:test";
import type { NodeContext } from "../../src/context/node-context.ts";
import type { Database } from "../../src/db/types.ts";
import { ingest, recoverStore, removeObject } from "../../src/objects/ingest.ts";
import { storedObject } from "../helpers/data/sysmeta.ts";
import { forEachDialect } from "../helpers/db/databases.ts";
import { contextOver } from "../helpers/nodes/federation-context.ts";
import { withFaults } from "./faulty-store.ts";
import { chunked, readBytes } from "./object-store-suite.ts";

async function faultyContext(db: Database) {
  const ctx: NodeContext = await contextOver(db);
  const store = withFaults(ctx.store);
  ctx.store = store;
  return { ctx, store };
}

/** Ingest `data` as object `pid`. */
async function create(ctx: NodeContext, pid: string, data: Buffer): Promise<string> {
  const staged = await ctx.store.stage(chunked(data));
  const object = storedObject(pid, { size: data.length });
  await ingest(ctx, "client", staged, (tx, contentKey) =>
    tx.objects.insert({ ...object, contentKey, digests: staged.digests }),
  );
  return staged.key;
}

async function intents(ctx: NodeContext): Promise<readonly string[]> {
  return ctx.db.blobIntents.list();
}

forEachDialect((_name, open) => {
  it("a commit that fails before or after placing the bytes: no row, no bytes, no intent", async () => {
    const { ctx, store } = await faultyContext(await open());
    for (const mode of ["before", "after"] as const) {
      store.faults = { failCommit: mode };
      const data = randomBytes(5000);
      await assert.rejects(create(ctx, `fail-${mode}`, data), { code: "EIO" });
      assert.equal(await ctx.db.objects.get(`fail-${mode}`), undefined);
      assert.deepEqual(await intents(ctx), []);
      const keys: string[] = [];
      for await (const key of ctx.store.keys()) keys.push(key);
      assert.deepEqual(keys, []);
    }
  });

  it("a database write that fails after the commit: the bytes go again, no intent", async () => {
    const { ctx } = await faultyContext(await open());
    const staged = await ctx.store.stage(chunked(randomBytes(3000)));
    await assert.rejects(
      ingest(ctx, "client", staged, async () => {
        throw new Error("constraint violated");
      }),
      /constraint violated/,
    );
    assert.equal(await ctx.store.has(staged.key), false);
    assert.deepEqual(await intents(ctx), []);
  });

  it("a removal whose store delete fails leaves an intent; recovery removes the bytes", async () => {
    const { ctx, store } = await faultyContext(await open());
    const key = await create(ctx, "to-remove", randomBytes(2000));
    const object = await ctx.db.objects.get("to-remove");
    assert.ok(object);
    store.faults = { failRemove: true };
    await assert.rejects(removeObject(ctx, "client", object), { code: "EIO" });
    assert.equal(await ctx.db.objects.get("to-remove"), undefined);
    assert.equal(await ctx.store.has(key), true);
    assert.deepEqual(await intents(ctx), [key]);
    store.faults = {};
    assert.deepEqual(await recoverStore(ctx), { orphans: 1, temps: 0 });
    assert.equal(await ctx.store.has(key), false);
    assert.deepEqual(await intents(ctx), []);
  });

  it("a crash between placing the bytes and the row: recovery removes them; shared bytes are kept", async () => {
    const { ctx } = await faultyContext(await open());
    const shared = randomBytes(1000);
    const kept = await create(ctx, "keeps-shared", shared);
    const orphan = await ctx.store.stage(chunked(randomBytes(1500)));
    await ctx.db.blobIntents.add(orphan.key);
    await orphan.commit();
    const again = await ctx.store.stage(chunked(shared));
    await ctx.db.blobIntents.add(again.key);
    await again.commit();
    assert.deepEqual(await recoverStore(ctx), { orphans: 1, temps: 0 });
    assert.equal(await ctx.store.has(orphan.key), false);
    assert.ok((await readBytes(ctx.store, kept)).equals(shared));
  });

  it("removing the last object of some content while another create of it runs (slow store): bytes kept", async () => {
    const { ctx, store } = await faultyContext(await open());
    const data = randomBytes(64 * 1024);
    const key = await create(ctx, "first", data);
    const first = await ctx.db.objects.get("first");
    assert.ok(first);
    store.faults = { delayMs: 20 };
    await Promise.all([
      removeObject(ctx, "client", first),
      create(ctx, "second", data),
      removeObject(ctx, "client", first),
    ]);
    assert.equal(await ctx.db.objects.get("first"), undefined);
    assert.ok(await ctx.db.objects.get("second"));
    assert.ok((await readBytes(ctx.store, key)).equals(data));
    assert.deepEqual(await intents(ctx), []);
  });
});
