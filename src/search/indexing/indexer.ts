/**
 * Write-time indexing. An object is indexed when its write commits (create, update, replica, sysmeta change);
 * a sysmeta change rewrites only that object's document, reusing the science fields already extracted.
 * Index failures never fail the write: the object is indexed by its system metadata alone and the problem is
 * logged; `indexMissing` (reindex.ts, run at start-up) catches objects a crash left unindexed.
 */
import type { FormatRegistry } from "../../types/format-registry.ts";
import type { NodeLog } from "../../types/node-log.ts";
import type { StoredObject } from "../../types/stored-object.ts";
import { extractorFor } from "../extract/index.ts";
import type { SearchDocument } from "../schema/document.ts";
import { RESOURCE_MAP_FORMATS, readRelations } from "../schema/packages.ts";
import { FORMAT_MARK, readsBytes, scienceOf } from "../schema/science.ts";
import { sysmetaFields } from "../schema/sysmeta-fields.ts";
import { type SearchEngineDb, type SearchRepository, searchRepository } from "../store/index.ts";
import type { IndexedDatabase, ObjectBytes } from "./object-source.ts";

/**
 * What indexing needs (a node's context is one): the objects' records and the index's tables (`db`), the objects'
 * bytes (`store`); `log` (the node's logger) receives failures, a process warning when there is none.
 */
export interface IndexContext {
  db: IndexedDatabase;
  store: ObjectBytes;
  formats: FormatRegistry;
  log?: NodeLog;
  /** The node's search engine, whose repository of the index's tables indexing writes through (none: the database's). */
  search?: { readonly db: SearchEngineDb };
}

/** The index's tables: the node's engine's, else a repository on the database (commands run without an engine). */
export function indexTables(ctx: IndexContext): SearchRepository {
  return ctx.search?.db.search ?? searchRepository(ctx.db);
}

/**
 * Index an object held in the store: system metadata, access, package fields and (for known formats) science
 * metadata. A resource map also updates the package fields of the objects it names (and named before).
 * `bytes`: the object's bytes when the write still has them (bytesToHold), else they are read from the store.
 */
export async function indexStoredObject(
  ctx: IndexContext,
  object: StoredObject,
  bytes?: Buffer,
): Promise<void> {
  const { sysmeta } = object;
  const pid = sysmeta.identifier;
  const science = await extractScience(ctx, object, bytes);
  await indexTables(ctx).writeDocument(pid, await ownFields(ctx, object), science);
  if (RESOURCE_MAP_FORMATS.has(sysmeta.formatId)) {
    let relations: Awaited<ReturnType<typeof readRelations>> = [];
    try {
      if (hasBytes(object)) relations = await readRelations(await contentOf(ctx, object, bytes), pid);
    } catch {
      // A map that does not parse states no relations (its own document is indexed all the same).
    }
    await refresh(ctx, await indexTables(ctx).replaceRelations(pid, relations), pid);
  }
}

/**
 * Index several new objects in one transaction (a harvested page); resource maps one by one, as above. `held`:
 * bytes the write still has, by PID.
 */
export async function indexStoredObjects(
  ctx: IndexContext,
  objects: StoredObject[],
  held: ReadonlyMap<string, Buffer> = new Map(),
): Promise<void> {
  const plain = objects.filter((object) => !RESOURCE_MAP_FORMATS.has(object.sysmeta.formatId));
  const packages = await indexTables(ctx).packageFieldsOfMany(
    plain.map((object) => object.sysmeta.identifier),
  );
  const entries = [];
  for (const object of plain) {
    const pid = object.sysmeta.identifier;
    const fields = sysmetaFields(object.sysmeta, ctx.formats);
    for (const [name, values] of packages.get(pid) ?? []) fields.set(name, values);
    entries.push({ pid, sysmeta: fields, science: await extractScience(ctx, object, held.get(pid)) });
  }
  if (entries.length > 0) await indexTables(ctx).writeDocuments(entries);
  for (const object of objects) {
    const pid = object.sysmeta.identifier;
    if (RESOURCE_MAP_FORMATS.has(object.sysmeta.formatId))
      await indexStoredObject(ctx, object, held.get(pid));
  }
}

/** System-metadata and package fields of an object. */
async function ownFields(ctx: IndexContext, object: StoredObject): Promise<SearchDocument> {
  const fields = sysmetaFields(object.sysmeta, ctx.formats);
  for (const [name, values] of await indexTables(ctx).packageFields(object.sysmeta.identifier))
    fields.set(name, values);
  return fields;
}

/** Rewrite the documents of `pids` (already indexed ones only), except `skip`. */
async function refresh(ctx: IndexContext, pids: string[], skip?: string): Promise<void> {
  for (const pid of pids) {
    if (pid === skip || (await indexTables(ctx).readScience(pid)) === undefined) continue;
    await reindexSysmeta(ctx, pid);
  }
}

/** Index the object `pid` as it now is (re-extracting its science metadata), or drop it when gone. */
export async function indexObject(ctx: IndexContext, pid: string): Promise<void> {
  const object = await ctx.db.objects.get(pid);
  if (!object) return unindex(ctx, pid);
  await indexStoredObject(ctx, object);
}

/** After a system-metadata change: rewrite only this document, keeping its science fields. */
export async function reindexSysmeta(ctx: IndexContext, pid: string): Promise<void> {
  const object = await ctx.db.objects.get(pid);
  if (!object) return unindex(ctx, pid);
  const science = await indexTables(ctx).readScience(pid);
  if (science === undefined || object.sysmeta.formatId !== formatOf(science)) {
    return indexStoredObject(ctx, object);
  }
  await indexTables(ctx).writeDocument(pid, await ownFields(ctx, object), science);
}

/** Drop an object's document; when it was a resource map, its relations go and the objects it named are rewritten. */
export async function unindex(ctx: IndexContext, pid: string): Promise<void> {
  await indexTables(ctx).removeDocument(pid);
  const named = await indexTables(ctx).subjectsOfMap(pid);
  if (named.length > 0) await refresh(ctx, await indexTables(ctx).replaceRelations(pid, []));
}

/** The formatId the science fields were extracted under (stored with them). */
function formatOf(science: SearchDocument): string | undefined {
  const value = science.get(FORMAT_MARK)?.[0];
  return typeof value === "string" ? value : undefined;
}

async function extractScience(
  ctx: IndexContext,
  object: StoredObject,
  bytes: Buffer | undefined,
): Promise<SearchDocument> {
  const { sysmeta } = object;
  const read = readsBytes(sysmeta.formatId, sysmeta.size) && hasBytes(object);
  return scienceOf(sysmeta.formatId, read ? await contentOf(ctx, object, bytes) : undefined);
}

/**
 * A Coordinating Node knows objects whose bytes live on Member Nodes by their system metadata alone (content key
 * "", NO_BYTES): those are indexed by system metadata and access, and their bytes are never asked for.
 */
export function hasBytes(object: StoredObject): boolean {
  return object.contentKey !== "";
}

/** The object's bytes: those the write still has (when whole), else read from the store. */
export async function contentOf(
  ctx: IndexContext,
  object: StoredObject,
  held: Buffer | undefined,
): Promise<Buffer> {
  if (held?.length === object.sysmeta.size) return held;
  const chunks: Uint8Array[] = [];
  for await (const chunk of ctx.store.read(object.contentKey)) chunks.push(chunk);
  return Buffer.concat(chunks);
}

/**
 * How many bytes of a new object a write should keep in memory for the index: a document whose format the
 * index reads (science metadata, resource maps) up to HELD_DOCUMENT_BYTES; up to HELD_UNKNOWN_BYTES when the
 * format is not known yet as the bytes arrive (an upload whose system metadata comes after its bytes, as the
 * DataONE clients send them); none for other formats. Bigger documents are read from the store as before.
 */
export function bytesToHold(formatId: string | undefined): number {
  if (formatId === undefined) return HELD_UNKNOWN_BYTES;
  return extractorFor(formatId) || RESOURCE_MAP_FORMATS.has(formatId) ? HELD_DOCUMENT_BYTES : 0;
}

/** Most bytes of an indexed document kept from its write. */
export const HELD_DOCUMENT_BYTES = 16 * 1024 * 1024;
/** Most bytes kept of an upload whose format is not known yet (most metadata documents are smaller). */
export const HELD_UNKNOWN_BYTES = 1024 * 1024;
