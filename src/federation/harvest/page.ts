/**
 * Synchronizing one listed page. Objects the CN already holds as listed are skipped (one query for the page);
 * the others' system metadata is fetched a few requests at once. New DATA objects with nothing to link (no
 * series, no obsoleted version, identifier never reserved) are written in one transaction and indexed together;
 * every other object goes through synchronizeObject one by one.
 */
import type { StoredObject } from "../../db/types.ts";
import { D1Error } from "../../errors/exceptions.ts";
import { indexNewObjects } from "../../search/hooks.ts";
import { NO_BYTES } from "../../services/cn/core.ts";
import type { NodeContext } from "../../services/context.ts";
import type { ObjectInfo } from "../../types/index.ts";
import type { SystemMetadata } from "../../types/sysmeta.ts";
import { afterObjectSynchronized } from "./after-sync.ts";
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
export async function inLanes<T>(items: T[], lanes: number, work: (item: T) => Promise<void>): Promise<void> {
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
function plainNew(ctx: NodeContext, nodeId: string, fetched: Fetched, now: Date): StoredObject | undefined {
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
  if (todo.length === 0) return outcomes;

  const fetched: Fetched[] = [];
  await inLanes(todo, lanes, async (item) => {
    try {
      fetched.push({ item, sysmeta: await source.getSystemMetadata(item.identifier) });
    } catch (error) {
      if (!(error instanceof D1Error) || error.exception === "ServiceFailure") throw error;
      await reportSyncFailure(ctx, source, item.identifier, `${error.exception}: ${error.description}`);
      outcomes.failed++;
    }
  });

  const reserved = await reservedAmong(
    ctx,
    fetched.map((f) => f.item.identifier),
  );
  const now = new Date();
  const plain: StoredObject[] = [];
  const rest: Fetched[] = [];
  for (const f of fetched) {
    const object =
      held.has(f.item.identifier) || reserved.has(f.item.identifier)
        ? undefined
        : plainNew(ctx, nodeId, f, now);
    if (object) plain.push(object);
    else rest.push(f);
  }
  if (plain.length > 0) {
    try {
      await ctx.db.objects.insertMany(plain);
      outcomes.created += plain.length;
      await indexNewObjects(ctx, plain); // search index
      for (const object of plain) await afterObjectSynchronized(ctx, object.sysmeta.identifier);
    } catch {
      // One of them arrived meanwhile (CNRead.synchronize): each on its own, which sees what is there.
      for (const object of plain) {
        const f = fetched.find((x) => x.item.identifier === object.sysmeta.identifier);
        if (f) rest.push(f);
      }
    }
  }
  await inLanes(rest, lanes, async ({ item, sysmeta }) => {
    outcomes[await synchronizeObject(ctx, nodeId, source, item.identifier, item, sysmeta)]++;
  });
  return outcomes;
}

/** Which of these identifiers the CN has reserved or retired (few: one query). */
async function reservedAmong(ctx: NodeContext, pids: string[]): Promise<Set<string>> {
  if (pids.length === 0) return new Set();
  const rows = await ctx.db.kysely
    .selectFrom("cn_reservations")
    .select("id")
    .where("id", "in", pids)
    .execute();
  return new Set(rows.map((r) => r.id));
}
