/**
 * The usage counter's schedule: a `usage-count` task counts what the event log gained since the last pass
 * (count-usage.ts) and queues the next pass five minutes later. A node starts the cycle when it starts.
 */
import type { NodeContext } from "../../context/node-context.ts";
import { countUsage } from "./count-usage.ts";

export const USAGE_COUNT = "usage-count";

/** Seconds between passes: usage shows on a landing page within this much of the read. */
export const USAGE_COUNT_INTERVAL = 300;

export async function runUsageCount(ctx: NodeContext, task: { signal?: AbortSignal }): Promise<void> {
  try {
    await countUsage(ctx, task.signal ? { signal: task.signal } : {});
  } finally {
    await ctx.tasks.enqueue(USAGE_COUNT, "", null, {
      runAt: new Date(Date.now() + USAGE_COUNT_INTERVAL * 1000),
    });
  }
}

export async function startUsageCounting(ctx: NodeContext): Promise<void> {
  await ctx.tasks.enqueue(USAGE_COUNT, "", null);
}
