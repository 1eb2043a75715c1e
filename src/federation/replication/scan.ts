/**
 * The CN's periodic passes over its objects: pages of PIDs in order (keyset paging), then their system
 * metadata in one query per page.
 */

import type { NodeContext } from "../../context/node-context.ts";
import { scheduleReplication } from "../../services/cn/replica-outcomes.ts";
import type { StoredObject } from "../../types/stored-object.ts";
import { needsPlanning } from "./targets.ts";

const PAGE = 500;

/** Every object with a replication policy (`withPolicy`) or with a replica entry, page by page. */
export async function forEachObject(
  ctx: NodeContext,
  which: "withPolicy" | "withReplicas",
  visit: (object: StoredObject) => Promise<void>,
): Promise<void> {
  let after: string | undefined;
  for (;;) {
    const pids = await ctx.db.objects.pidsAfter(which, after, PAGE);
    if (pids.length === 0) return;
    const objects = await ctx.db.objects.getMany(pids);
    for (const pid of pids) {
      const object = objects.get(pid);
      if (object) await visit(object);
    }
    after = pids[pids.length - 1];
  }
}

/** Objects short of replicas, or with requests past the timeout, get a planning task. Returns how many. */
export async function scanForReplication(ctx: NodeContext): Promise<number> {
  const now = new Date();
  const timeoutMs = ctx.config.replicationRequestTimeout * 1000;
  let scheduled = 0;
  await forEachObject(ctx, "withPolicy", async (object) => {
    if (!needsPlanning(object.sysmeta, now, timeoutMs)) return;
    await scheduleReplication(ctx, object.sysmeta.identifier);
    scheduled++;
  });
  return scheduled;
}
