/**
 * The calls the write paths make once their transaction has committed, so that an object is searchable when
 * create/update/archive/updateSystemMetadata returns. A failure to index never fails the write: the document
 * is dropped (so the start-up catch-up, `indexMissing`, indexes it again) and the error is reported.
 */
import type { StoredObject } from "../db/types.ts";
import { type IndexContext, indexObject, indexStoredObjects, reindexSysmeta, unindex } from "./indexer.ts";

export type IndexErrorReporter = (message: string) => void;

let report: IndexErrorReporter = (message) => process.emitWarning(message, "SearchIndex");

/** Where indexing failures are reported (the server passes its logger). */
export function onIndexError(reporter: IndexErrorReporter): void {
  report = reporter;
}

async function guarded(ctx: IndexContext, pid: string, work: () => Promise<void>): Promise<void> {
  try {
    await work();
  } catch (error) {
    report(`Search index: "${pid}" could not be indexed: ${(error as Error).message}`);
    await unindex(ctx, pid).catch(() => undefined);
  }
}

/** A new object (create, update's new version, replica): index it with its science metadata. */
export function indexNewObject(ctx: IndexContext, pid: string): Promise<void> {
  return guarded(ctx, pid, () => indexObject(ctx, pid));
}

/** Many new objects at once (a harvested page); when the batch fails, each is indexed on its own. */
export async function indexNewObjects(ctx: IndexContext, objects: StoredObject[]): Promise<void> {
  try {
    await indexStoredObjects(ctx, objects);
  } catch {
    for (const object of objects) await indexNewObject(ctx, object.sysmeta.identifier);
  }
}

/** An object's system metadata changed (archive, obsoletedBy, access, ...): rewrite only its document. */
export function indexSysmetaChange(ctx: IndexContext, pid: string): Promise<void> {
  return guarded(ctx, pid, () => reindexSysmeta(ctx, pid));
}

/** An object was deleted. */
export function indexRemoval(ctx: IndexContext, pid: string): Promise<void> {
  return guarded(ctx, pid, () => unindex(ctx, pid));
}
