/**
 * Write-time indexing. An object is indexed when its write commits (create, update, replica, sysmeta change);
 * a sysmeta change rewrites only that object's document, reusing the science fields already extracted.
 * Index failures never fail the write: the object is indexed by its system metadata alone and the problem is
 * logged; `indexMissing` (run at start-up) catches objects a crash left unindexed.
 */
import { sql } from "kysely";
import type { StoredObject } from "../db/types.ts";
import type { NodeContext } from "../services/context.ts";
import type { SearchDocument } from "./document.ts";
import { extractorFor, MAX_METADATA_BYTES } from "./extract/index.ts";
import { readScience, removeDocument, writeDocument } from "./index-store.ts";
import { sysmetaFields } from "./sysmeta-fields.ts";

export type IndexContext = Pick<NodeContext, "db" | "store" | "formats">;

/** Index an object held in the store: system metadata, access and (for known formats) science metadata. */
export async function indexStoredObject(ctx: IndexContext, object: StoredObject): Promise<void> {
  const { sysmeta } = object;
  const science = await extractScience(ctx, object);
  await writeDocument(ctx.db.kysely, sysmeta.identifier, sysmetaFields(sysmeta, ctx.formats), science);
}

/** Index the object `pid` as it now is (re-extracting its science metadata), or drop it when gone. */
export async function indexObject(ctx: IndexContext, pid: string): Promise<void> {
  const object = await ctx.db.objects.get(pid);
  if (!object) return removeDocument(ctx.db.kysely, pid);
  await indexStoredObject(ctx, object);
}

/** After a system-metadata change: rewrite only this document, keeping its science fields. */
export async function reindexSysmeta(ctx: IndexContext, pid: string): Promise<void> {
  const object = await ctx.db.objects.get(pid);
  if (!object) return removeDocument(ctx.db.kysely, pid);
  const science = await readScience(ctx.db.kysely, pid);
  if (science === undefined || object.sysmeta.formatId !== formatOf(science)) {
    return indexStoredObject(ctx, object);
  }
  await writeDocument(ctx.db.kysely, pid, sysmetaFields(object.sysmeta, ctx.formats), science);
}

export async function unindex(ctx: IndexContext, pid: string): Promise<void> {
  await removeDocument(ctx.db.kysely, pid);
}

/** Objects the start-up catch-up indexes at most; more means a bulk load, indexed by `reindexAll`. */
export const CATCH_UP_LIMIT = 10_000;

/**
 * Index objects that have no index entry (a crash between a commit and its indexing leaves a few). Returns how
 * many were indexed, or undefined when more than `limit` are missing (objects bulk-loaded without indexing):
 * those are left for an explicit `indexMissing(ctx, Infinity)`.
 */
export async function indexMissing(ctx: IndexContext, limit = CATCH_UP_LIMIT): Promise<number | undefined> {
  const query = ctx.db.kysely
    .selectFrom("objects")
    .select("pid")
    .where(({ not, exists, selectFrom }) =>
      not(
        exists(
          selectFrom("search_docs").select(sql`1`.as("one")).whereRef("search_docs.pid", "=", "objects.pid"),
        ),
      ),
    );
  const rows = await (Number.isFinite(limit) ? query.limit(limit + 1) : query).execute();
  if (rows.length > limit) return undefined;
  for (const { pid } of rows) await indexObject(ctx, pid);
  return rows.length;
}

/** The formatId the science fields were extracted under (stored with them). */
function formatOf(science: SearchDocument): string | undefined {
  const value = science.get(FORMAT_MARK)?.[0];
  return typeof value === "string" ? value : undefined;
}

/** Science documents remember their format under the schema's formatId field (overridden by sysmeta's). */
const FORMAT_MARK = "formatId";

async function extractScience(ctx: IndexContext, object: StoredObject): Promise<SearchDocument> {
  const { sysmeta } = object;
  const none: SearchDocument = new Map([[FORMAT_MARK, [sysmeta.formatId]]]);
  const extract = extractorFor(sysmeta.formatId);
  if (!extract || sysmeta.size > MAX_METADATA_BYTES) return none;
  try {
    const bytes = await readAll(ctx, object);
    const science = extract(bytes);
    science.set(FORMAT_MARK, [sysmeta.formatId]);
    return science;
  } catch {
    // "Documents that cannot be parsed are indexed by their system metadata" (as the DataONE indexer does).
    return none;
  }
}

async function readAll(ctx: IndexContext, object: StoredObject): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of ctx.store.read(object.contentKey)) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}
