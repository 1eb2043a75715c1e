/**
 * The calls the write paths make once their transaction has committed, so that an object is searchable when
 * create/update/archive/updateSystemMetadata returns. A failure to index never fails the write: the document
 * is dropped (so the start-up catch-up, `indexMissing`, indexes it again) and the failure is logged through the
 * node's logger (`ctx.log`, each node its own) with the pid and the error.
 */
import { isStorageFull } from "../../db/engine/storage-full.ts";
import type { ObjectChange } from "../../objects/changes.ts";
import type { StoredObject } from "../../types/stored-object.ts";
import {
  type IndexContext,
  indexObject,
  indexStoredObject,
  indexStoredObjects,
  reindexSysmeta,
  unindex,
} from "./indexer.ts";

/**
 * Log that `pid` could not be indexed: through the node's logger, the PID as `identifier` (pino's own `pid` is the
 * process's) and the error as `err`; a process warning for a context without a logger.
 */
export function reportIndexFailure(ctx: IndexContext, pid: string, error: unknown): void {
  if (ctx.log) ctx.log.error({ identifier: pid, err: error }, `search index: "${pid}" could not be indexed`);
  else
    process.emitWarning(
      `Search index: "${pid}" could not be indexed: ${(error as Error).message}`,
      "SearchIndex",
    );
}

/** `guarded`'s option for one object of many. */
export const IN_BULK = { inBulk: true } as const;

/**
 * Run `work`; on failure, report it and drop the document of `pid`. Resolves to whether it succeeded. For one
 * object of many (`inBulk`: a rebuild, the catch-up), a full database's storage is thrown instead: the run stops
 * at once rather than failing, and logging, every object after it the same way.
 */
export async function guarded(
  ctx: IndexContext,
  pid: string,
  work: () => Promise<void>,
  { inBulk = false } = {},
): Promise<boolean> {
  try {
    await work();
    return true;
  } catch (error) {
    if (inBulk && isStorageFull(error)) throw error;
    reportIndexFailure(ctx, pid, error);
    await unindex(ctx, pid).catch(() => undefined);
    return false;
  }
}

/** A new object (create, update's new version, replica): index it with its science metadata. */
export async function indexNewObject(ctx: IndexContext, pid: string): Promise<void> {
  await guarded(ctx, pid, () => indexObject(ctx, pid));
}

/**
 * Many new objects at once (a harvested page; `held`: bytes the write still has, by PID); when the batch fails,
 * each is indexed on its own.
 */
export async function indexNewObjects(
  ctx: IndexContext,
  objects: StoredObject[],
  held?: ReadonlyMap<string, Buffer>,
): Promise<void> {
  try {
    await indexStoredObjects(ctx, objects, held);
  } catch {
    for (const object of objects) await indexNewObject(ctx, object.sysmeta.identifier);
  }
}

/** An object's system metadata changed (archive, obsoletedBy, access, ...): rewrite only its document. */
export async function indexSysmetaChange(ctx: IndexContext, pid: string): Promise<void> {
  await guarded(ctx, pid, () => reindexSysmeta(ctx, pid));
}

/** An object was deleted. */
export async function indexRemoval(ctx: IndexContext, pid: string): Promise<void> {
  await guarded(ctx, pid, () => unindex(ctx, pid));
}

/**
 * The search index's subscriber to object writes (src/objects/), run after the commit: new objects from the rows
 * the write already has (many at once as one batch), then changed and removed ones, in the order written.
 */
export async function indexChanges(ctx: IndexContext, changes: readonly ObjectChange[]): Promise<void> {
  const created = changes.flatMap((change) => (change.kind === "created" ? [change] : []));
  const [only] = created;
  if (created.length > 1) {
    const held = new Map(created.flatMap((c) => (c.bytes ? [[c.object.sysmeta.identifier, c.bytes]] : [])));
    await indexNewObjects(
      ctx,
      created.map((c) => c.object),
      held,
    );
  } else if (only) {
    await guarded(ctx, only.object.sysmeta.identifier, () => indexStoredObject(ctx, only.object, only.bytes));
  }
  for (const change of changes) {
    if (change.kind === "sysmeta") await indexSysmetaChange(ctx, change.sysmeta.identifier);
    if (change.kind === "removed") await indexRemoval(ctx, change.pid);
  }
}
