/**
 * One harvest of one Member Node: its listObjects pages from where the last harvest ended (window.ts), each
 * listed object synchronized (object.ts) a few at a time, and the node's lastHarvested recorded at the end.
 */

import type { NodeContext } from "../../services/context.ts";
import { createKeyedMutex } from "../../services/keyed-mutex.ts";
import type { ObjectInfo } from "../../types/index.ts";
import type { Node } from "../../types/node.ts";
import { clientFor } from "../client.ts";
import { isUpToDate, type SourceNode, type SyncOutcome, synchronizeObject } from "./object.ts";
import { progressStore } from "./progress.ts";
import { recordHarvested } from "./registry.ts";
import { harvestWindow, type Lister, type WindowResult } from "./window.ts";

export type HarvestSource = SourceNode & Lister;

export interface HarvestOptions {
  /** The node's calls (default: a client for its baseURL). */
  source?: HarvestSource;
  pageSize?: number;
  lagMs?: number;
  /** Objects synchronized at once within a page. */
  concurrency?: number;
}

export interface HarvestResult extends WindowResult {
  outcomes: Record<SyncOutcome, number>;
}

/** Two harvests of the same node never run at once in this process. */
const running = createKeyedMutex();

export async function harvestNode(
  ctx: NodeContext,
  node: Node,
  options: HarvestOptions = {},
): Promise<HarvestResult> {
  const nodeId = node.identifier;
  const source = options.source ?? clientFor(ctx, node.baseURL);
  const concurrency = options.concurrency ?? 8;
  const outcomes: Record<SyncOutcome, number> = { created: 0, updated: 0, unchanged: 0, failed: 0 };

  const processPage = async (items: ObjectInfo[]) => {
    // One query tells which listed objects the CN already holds as listed; only the others are fetched.
    const held = await ctx.db.objects.getMany(items.map((i) => i.identifier));
    const todo = items.filter((item) => !isUpToDate(held.get(item.identifier), nodeId, item));
    outcomes.unchanged += items.length - todo.length;
    let next = 0;
    let failure: { error: unknown } | undefined;
    const lane = async () => {
      while (!failure && next < todo.length) {
        const item = todo[next++] as ObjectInfo;
        try {
          outcomes[await synchronizeObject(ctx, nodeId, source, item.identifier, item)]++;
        } catch (error) {
          failure = { error }; // the other lanes stop; the page is tried again from the saved position
        }
      }
    };
    await Promise.all(Array.from({ length: Math.min(concurrency, todo.length) }, lane));
    if (failure) throw failure.error;
  };

  return running.run(`${ctx.config.dataDir}\n${nodeId}`, async () => {
    const result = await harvestWindow({
      nodeId,
      lister: source,
      progress: progressStore(ctx.db.kysely),
      processPage,
      lastHarvested: node.synchronization?.lastHarvested,
      ...(options.pageSize ? { pageSize: options.pageSize } : {}),
      ...(options.lagMs !== undefined ? { lagMs: options.lagMs } : {}),
    });
    if (result.pages > 0 && result.harvestedTo) {
      await recordHarvested(ctx, nodeId, result.harvestedTo, result.complete);
    }
    return { ...result, outcomes };
  });
}
