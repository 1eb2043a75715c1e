/**
 * The pages of a bulk rebuild as two stages: a page is read (objects, their package fields, the bytes the index
 * reads) and handed to the extraction threads, and while they make its rows the previous page is written.
 * Writing a page: its plain objects' rows in one transaction, then its resource maps one by one (so their
 * members' package fields follow, as at write time). A page whose write fails is indexed object by object.
 */
import { isStorageFull } from "../../db/engine/storage-full.ts";
import type { StoredObject } from "../../types/stored-object.ts";
import { guarded, IN_BULK } from "../indexing/hooks.ts";
import {
  contentOf,
  hasBytes,
  type IndexContext,
  indexStoredObject,
  indexTables,
} from "../indexing/indexer.ts";
import type { SearchDocument } from "../schema/document.ts";
import type { IndexRows } from "../schema/index-rows.ts";
import { RESOURCE_MAP_FORMATS } from "../schema/packages.ts";
import { readsBytes } from "../schema/science.ts";
import { sysmetaFields } from "../schema/sysmeta-fields.ts";
import type { ExtractItem } from "./extract-messages.ts";
import type { ExtractPool } from "./extract-pool.ts";

/** A page read and on its way through the extraction threads. */
export interface PreparedPage {
  /** The PIDs read (some may have gone since). */
  pids: string[];
  /** The plain objects' PIDs (their rows made together). */
  plainPids: string[];
  /** The objects found, plain ones first. */
  objects: StoredObject[];
  /** The package fields the plain objects' rows were made with, as JSON, by pid. */
  packages: Map<string, string>;
  /** The plain objects' rows ("written": an extraction thread wrote them), or why they could not be made. */
  rows: Promise<IndexRows[] | "written" | Error>;
}

/** Read the objects of `pids` and start making their rows. */
export async function preparePage(
  ctx: IndexContext,
  pool: ExtractPool,
  pids: string[],
): Promise<PreparedPage> {
  const found = await ctx.db.objects.getMany(pids);
  // One deleted since the page was read is the node's to unindex.
  const objects = pids.flatMap((pid) => found.get(pid) ?? []);
  const plain = objects.filter((object) => !isMap(object));
  const fields = await indexTables(ctx).packageFieldsOfMany(plain.map((object) => object.sysmeta.identifier));
  const packages = new Map<string, string>();
  const items: ExtractItem[] = [];
  for (const object of plain) {
    const { sysmeta } = object;
    const pid = sysmeta.identifier;
    const own = fields.get(pid) ?? new Map();
    packages.set(pid, packageKey(own));
    const doc = sysmetaFields(sysmeta, ctx.formats);
    for (const [name, values] of own) doc.set(name, values);
    const bytes = readsBytes(sysmeta.formatId, sysmeta.size) && hasBytes(object);
    items.push({
      pid,
      formatId: sysmeta.formatId,
      sysmeta: doc,
      ...(bytes ? { bytes: await contentOf(ctx, object, undefined) } : {}),
    });
  }
  const rows = pool.rows(items).catch((error: unknown) => error as Error);
  const plainPids = plain.map((object) => object.sysmeta.identifier);
  return { pids, plainPids, objects: [...plain, ...objects.filter(isMap)], packages, rows };
}

/** Write a prepared page; resolves to how many of its objects failed (each was logged). */
export async function writePage(ctx: IndexContext, page: PreparedPage): Promise<number> {
  const rows = await page.rows;
  let failed = 0;
  try {
    if (rows instanceof Error) throw rows;
    if (rows === "written") await indexTables(ctx).noteWrittenElsewhere(page.plainPids);
    else if (rows.length > 0) await indexTables(ctx).writeRows(rows);
    for (const object of page.objects) if (isMap(object)) await indexStoredObject(ctx, object);
  } catch (error) {
    // A full disk fails every object alike: the run stops (reindex.ts says so once).
    if (isStorageFull(error)) throw error;
    for (const object of page.objects) {
      const pid = object.sysmeta.identifier;
      if (!(await guarded(ctx, pid, () => indexStoredObject(ctx, object), IN_BULK))) failed++;
    }
    return failed;
  }
  return failed + (await rewriteRelated(ctx, page));
}

/**
 * A map written after this page was read (the page before, or one of this page's) may name its objects: those
 * whose package fields are no longer what their rows were made with are indexed again, one by one.
 */
async function rewriteRelated(ctx: IndexContext, page: PreparedPage): Promise<number> {
  const now = await indexTables(ctx).packageFieldsOfMany([...page.packages.keys()]);
  let failed = 0;
  for (const object of page.objects) {
    const pid = object.sysmeta.identifier;
    const before = page.packages.get(pid);
    if (before === undefined || before === packageKey(now.get(pid) ?? new Map())) continue;
    if (!(await guarded(ctx, pid, () => indexStoredObject(ctx, object), IN_BULK))) failed++;
  }
  return failed;
}

function packageKey(fields: SearchDocument): string {
  return JSON.stringify([...fields]);
}

function isMap(object: StoredObject): boolean {
  return RESOURCE_MAP_FORMATS.has(object.sysmeta.formatId);
}
