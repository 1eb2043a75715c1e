/**
 * Synchronizing one listed page. Objects the CN already holds as listed are skipped (one query for the page);
 * the others' system metadata is fetched a few requests at once. New DATA objects with nothing to link (no
 * series, no obsoleted version, identifier never reserved) are written in one transaction and indexed together;
 * every other object goes through synchronizeObject one by one. The page goes in chunks: while one chunk is
 * written, the next one's system metadata is fetched.
 */

import type { NodeContext } from "../../context/node-context.ts";
import { D1Error } from "../../errors/exceptions.ts";
import { writeObjects } from "../../objects/write.ts";
import { NO_BYTES } from "../../services/cn/core.ts";
import type { ObjectInfo } from "../../types/index.ts";
import type { StoredObject } from "../../types/stored-object.ts";
import type { SystemMetadata } from "../../types/sysmeta.ts";
import { replanIfWanted } from "./after-sync.ts";
import {
  asHarvested,
  holdsBytes,
  isUpToDate,
  type SourceNode,
  type SyncOutcome,
  synchronizeObject,
  sysmetaOnly,
} from "./object.ts";
import { reportSyncFailure } from "./report.ts";
import { checkHarvested } from "./rules.ts";

export type Outcomes = Record<SyncOutcome, number>;

export const noOutcomes = (): Outcomes => ({ created: 0, updated: 0, unchanged: 0, failed: 0 });

/** Runs `work` on every item, `lanes` at a time; the first failure stops the others and is thrown. */
export async function inLanes<T>(
  items: readonly T[],
  lanes: number,
  work: (item: T) => Promise<void>,
): Promise<void> {
  let next = 0;
  let failure: { error: unknown } | undefined;
  const lane = async () => {
    while (!failure && next < items.length) {
      const item = items[next++] as T;
      try {
        await work(item);
      } catch (error) {
        failure = { error };
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(lanes, items.length) }, lane));
  if (failure) throw failure.error;
}

interface Fetched {
  item: ObjectInfo;
  sysmeta: SystemMetadata;
}

/** A new DATA object that touches no other record (and passes the checks), or undefined. */
function batchableNew(
  ctx: NodeContext,
  nodeId: string,
  fetched: Fetched,
  now: Date,
): StoredObject | undefined {
  const { sysmeta, item } = fetched;
  try {
    checkHarvested(ctx.formats, item.identifier, sysmeta);
  } catch {
    return undefined; // synchronizeObject reports it
  }
  if (
    sysmeta.seriesId !== undefined ||
    sysmeta.obsoletes !== undefined ||
    holdsBytes(ctx, sysmeta.formatId)
  ) {
    return undefined;
  }
  const stored = asHarvested(sysmeta, nodeId, now);
  return { sysmeta: stored, contentKey: NO_BYTES, digests: sysmetaOnly(stored), isReplica: false };
}

/** Objects fetched, then written, per chunk: writing one chunk overlaps fetching the next. */
const CHUNK = 250;

export async function synchronizePage(
  ctx: NodeContext,
  nodeId: string,
  source: SourceNode,
  items: ObjectInfo[],
  lanes: number,
): Promise<Outcomes> {
  const outcomes = noOutcomes();
  const held = await ctx.db.objects.getMany(items.map((i) => i.identifier));
  const todo = items.filter((item) => !isUpToDate(held.get(item.identifier), nodeId, item));
  outcomes.unchanged += items.length - todo.length;
  // The chunk being written, settled to its error (if any) so that a failure waits to be seen, never unheard.
  let writing: Promise<{ error: unknown } | undefined> = Promise.resolve(undefined);
  try {
    for (let i = 0; i < todo.length; i += CHUNK) {
      const fetched = await fetchSysmeta(ctx, source, todo.slice(i, i + CHUNK), lanes, outcomes);
      const failed = await writing;
      if (failed) throw failed.error;
      writing = writeChunk(ctx, nodeId, source, fetched, held, lanes, outcomes).then(
        () => undefined,
        (error: unknown) => ({ error }),
      );
    }
  } catch (error) {
    await writing; // nothing is left writing once the page is given up
    throw error;
  }
  const failed = await writing;
  if (failed) throw failed.error;
  return outcomes;
}

/** System metadata, a few requests at once; an object the node will not give is reported and left out. */
async function fetchSysmeta(
  ctx: NodeContext,
  source: SourceNode,
  items: ObjectInfo[],
  lanes: number,
  outcomes: Outcomes,
): Promise<Fetched[]> {
  const fetched: Fetched[] = [];
  await inLanes(items, lanes, async (item) => {
    try {
      fetched.push({ item, sysmeta: await source.getSystemMetadata(item.identifier) });
    } catch (error) {
      if (!(error instanceof D1Error) || error.exception === "ServiceFailure") throw error;
      await reportSyncFailure(ctx, source, item.identifier, `${error.exception}: ${error.description}`);
      outcomes.failed++;
    }
  });
  return fetched;
}

async function writeChunk(
  ctx: NodeContext,
  nodeId: string,
  source: SourceNode,
  fetched: Fetched[],
  held: Map<string, StoredObject>,
  lanes: number,
  outcomes: Outcomes,
): Promise<void> {
  const reserved = await ctx.db.cn.reservedAmong(fetched.map((f) => f.item.identifier));
  const now = new Date();
  const plain: StoredObject[] = [];
  const rest: Fetched[] = [];
  for (const f of fetched) {
    const object =
      held.has(f.item.identifier) || reserved.has(f.item.identifier)
        ? undefined
        : batchableNew(ctx, nodeId, f, now);
    if (object) plain.push(object);
    else rest.push(f);
  }
  if (plain.length > 0 && (await insertedTogether(ctx, plain))) {
    outcomes.created += plain.length;
  } else {
    // One of them arrived meanwhile (CNRead.synchronize): each on its own, which sees what is there.
    const batched = new Set(plain.map((object) => object.sysmeta.identifier));
    rest.push(...fetched.filter((f) => batched.has(f.item.identifier)));
  }
  await inLanes(rest, lanes, async ({ item, sysmeta }) => {
    outcomes[await synchronizeObject(ctx, nodeId, source, item.identifier, item, sysmeta)]++;
  });
}

/**
 * One write for all; false when it could not be (nothing of it is stored). The write core indexes them as one
 * batch and plans the replicas of those whose policy asks for them.
 */
async function insertedTogether(ctx: NodeContext, objects: StoredObject[]): Promise<boolean> {
  try {
    await writeObjects(ctx, "harvest", async (tx) => {
      await tx.objects.insertMany(objects);
      for (const object of objects) replanIfWanted(tx, object.sysmeta);
    });
    return true;
  } catch {
    return false;
  }
}
