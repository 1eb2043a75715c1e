/**
 * One harvest of one Member Node: its listObjects pages from where the last harvest ended (window.ts), each
 * listed object synchronized (object.ts) a few at a time, and the node's lastHarvested recorded at the end.
 */

import type { NodeContext } from "../../context/node-context.ts";
import { createKeyedMutex } from "../../objects/keyed-mutex.ts";
import { systemClock } from "../../types/clock.ts";
import type { ObjectInfo } from "../../types/index.ts";
import type { Node } from "../../types/node.ts";
import { clientFor } from "../client.ts";
import { versionFor } from "../propagation/deliver.ts";
import type { SourceNode } from "./object.ts";
import { noOutcomes, type Outcomes, synchronizePage } from "./page.ts";
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
  /** Stops the harvest before its next page (the position saved so far is kept). */
  signal?: AbortSignal;
}

export interface HarvestResult extends WindowResult {
  outcomes: Outcomes;
}

/** Two harvests of the same node never run at once in this process. */
const running = createKeyedMutex();

export async function harvestNode(
  ctx: NodeContext,
  node: Node,
  options: HarvestOptions = {},
): Promise<HarvestResult> {
  const nodeId = node.identifier;
  // A node serving MNRead v1 only is harvested through v1 (its documents carry no v2 fields).
  const source = options.source ?? clientFor(ctx, node.baseURL, { version: versionFor(node) });
  const concurrency = options.concurrency ?? 8;
  const outcomes = noOutcomes();
  const processPage = async (items: ObjectInfo[]) => {
    options.signal?.throwIfAborted();
    const page = await synchronizePage(ctx, nodeId, source, items, concurrency);
    for (const key of Object.keys(page) as (keyof Outcomes)[]) outcomes[key] += page[key];
  };

  return running.run(`${ctx.config.dataDir}\n${nodeId}`, async () => {
    const result = await harvestWindow({
      nodeId,
      lister: source,
      progress: ctx.db.harvestProgress,
      processPage,
      lastHarvested: node.synchronization?.lastHarvested,
      // The window ends `lagMs` before now, as the node's clock says.
      now: new Date((ctx.clock ?? systemClock).now()),
      ...(options.pageSize ? { pageSize: options.pageSize } : {}),
      ...(options.lagMs !== undefined ? { lagMs: options.lagMs } : {}),
    });
    if (result.pages > 0 && result.harvestedTo) {
      await recordHarvested(ctx, nodeId, result.harvestedTo, result.complete);
    }
    return { ...result, outcomes };
  });
}
