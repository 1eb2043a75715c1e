/**
 * A new metadata document is indexed from the bytes its write kept while staging (src/objects/held-bytes.ts),
 * without reading them back from the store; a document beyond the limit, or one whose bytes were not kept,
 * is read from the store and indexed all the same. Through the write core (ingest) on both databases, with a
 * store decorator counting reads.
 */
import assert from "node:assert/strict";
import { readFile } from "node:fs/promises";
import path from "node:path";
import { it } from "node:test";
import type { NodeContext } from "../../src/context/node-context.ts";
import type { Database } from "../../src/db/types.ts";
import { stageHolding } from "../../src/objects/held-bytes.ts";
import { ingest } from "../../src/objects/ingest.ts";
import { searchUncached } from "../../src/search/answers/search.ts";
import { bytesToHold, HELD_DOCUMENT_BYTES, HELD_UNKNOWN_BYTES } from "../../src/search/indexing/indexer.ts";
import { SolrParams } from "../../src/search/query/params.ts";
import { parseSearchRequest } from "../../src/search/query/parse-request.ts";
import { storedObject } from "../helpers/data/sysmeta.ts";
import { forEachDialect } from "../helpers/db/databases.ts";
import { contextOver } from "../helpers/nodes/federation-context.ts";
import { withFaults } from "./faulty-store.ts";
import { chunked } from "./object-store-suite.ts";

const EML_FORMAT = "https://eml.ecoinformatics.org/eml-2.2.0";
const EML = await readFile(path.join(import.meta.dirname, "../fixtures/search/eml-2.2.0-testdoc.xml"));

async function countingContext(db: Database) {
  const ctx: NodeContext = await contextOver(db);
  const store = withFaults(ctx.store);
  ctx.store = store;
  return { ctx, store };
}

/** Stage `data` as `formatId` keeping what the index wants (`known`: the format is known as the bytes arrive). */
async function create(ctx: NodeContext, pid: string, data: Buffer, formatId: string, known = true) {
  const staged = await stageHolding(ctx.store, chunked(data), {}, bytesToHold(known ? formatId : undefined));
  const object = storedObject(pid, { size: data.length, formatId });
  await ingest(ctx, "client", staged, (tx, contentKey) =>
    tx.objects.insert({ ...object, contentKey, digests: staged.digests }),
  );
  return staged;
}

async function titleOf(ctx: NodeContext, pid: string): Promise<unknown> {
  const request = parseSearchRequest(SolrParams.from({ q: `id:"${pid}"`, fl: "id,title" }));
  const found = await searchUncached(ctx.search, request, "all");
  assert.equal(found.numFound, 1);
  return found.docs[0]?.title;
}

/** The EML document grown past `size` bytes by a comment before its last element closes. */
function grown(size: number): Buffer {
  const text = EML.toString("utf8");
  const at = text.lastIndexOf("</");
  const padding = `<!--${" ".repeat(size - EML.length)}-->`;
  return Buffer.from(`${text.slice(0, at)}${padding}${text.slice(at)}`);
}

forEachDialect((_name, open) => {
  it("a new metadata document is indexed from the bytes kept while staging: no store read", async () => {
    const { ctx, store } = await countingContext(await open());
    const staged = await create(ctx, "eml-held", EML, EML_FORMAT);
    assert.equal(staged.held?.equals(EML), true);
    assert.equal(store.calls.read, 0);
    assert.equal(await titleOf(ctx, "eml-held"), "EML Annotation Example");
  });

  it("when the format is not known as the bytes arrive, a small upload is kept too", async () => {
    const { ctx, store } = await countingContext(await open());
    await create(ctx, "eml-unknown", EML, EML_FORMAT, false);
    assert.equal(store.calls.read, 0);
    assert.equal(await titleOf(ctx, "eml-unknown"), "EML Annotation Example");
    const bigger = grown(HELD_UNKNOWN_BYTES + 1);
    const staged = await create(ctx, "eml-unknown-big", bigger, EML_FORMAT, false);
    assert.equal(staged.held, undefined);
    assert.equal(store.calls.read, 1);
    assert.equal(await titleOf(ctx, "eml-unknown-big"), "EML Annotation Example");
  });

  it("a data object is not kept", async () => {
    const { ctx } = await countingContext(await open());
    const staged = await create(ctx, "csv", Buffer.from("a,b\n1,2\n"), "text/csv");
    assert.equal(staged.held, undefined);
  });

  it("a document beyond the limit is not kept, read from the store and indexed all the same", async () => {
    const { ctx, store } = await countingContext(await open());
    const big = grown(HELD_DOCUMENT_BYTES + 1024);
    const staged = await create(ctx, "eml-big", big, EML_FORMAT);
    assert.equal(staged.held, undefined);
    assert.equal(store.calls.read, 1);
    assert.equal(await titleOf(ctx, "eml-big"), "EML Annotation Example");
  });
});
