/**
 * The usage counter's schedule: a `usage-count` task counts what the event log gained since the last pass
 * (count-usage.ts) and queues the next pass five minutes later, or at once when it stopped at its share (a long
 * log, after an upgrade, is counted in passes that leave the worker's slots to other tasks between them). A node
 * starts the cycle when it starts.
 */
import type { NodeContext } from "../../context/node-context.ts";
import { countUsage } from "./count-usage.ts";

export const USAGE_COUNT = "usage-count";

/** Seconds between passes: usage shows on a landing page within this much of the read. */
export const USAGE_COUNT_INTERVAL = 300;
/** Events one pass counts at most (about a minute's work). */
export const USAGE_PASS_EVENTS = 500_000;

export async function runUsageCount(ctx: NodeContext, task: { signal?: AbortSignal }): Promise<void> {
  let moved = 0;
  try {
    moved = await countUsage(ctx, {
      maxEvents: USAGE_PASS_EVENTS,
      ...(task.signal ? { signal: task.signal } : {}),
    });
  } finally {
    const delay = moved >= USAGE_PASS_EVENTS ? 0 : USAGE_COUNT_INTERVAL * 1000;
    await ctx.tasks.enqueue(USAGE_COUNT, "", null, { runAt: new Date(Date.now() + delay) });
  }
}

export async function startUsageCounting(ctx: NodeContext): Promise<void> {
  await ctx.tasks.enqueue(USAGE_COUNT, "", null);
}
