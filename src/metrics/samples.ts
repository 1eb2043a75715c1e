/**
 * The status page's plots: every `intervalMs` the node notes its request and byte rates since the last sample
 * and the task queue's depth, in a ring holding the last hour. Memory only; it starts empty with the process.
 */
import type { NodeMetrics } from "./node-metrics.ts";

export interface Sample {
  at: Date;
  requestsPerSecond: number;
  bytesInPerSecond: number;
  bytesOutPerSecond: number;
  /** Tasks ready or running; undefined when the database could not be read. */
  queueDepth: number | undefined;
}

export const HOUR_MS = 3_600_000;

export class SampleRing {
  private readonly items: Sample[] = [];
  constructor(readonly capacity: number) {}

  push(sample: Sample): void {
    this.items.push(sample);
    if (this.items.length > this.capacity) this.items.shift();
  }

  /** Oldest first. */
  all(): readonly Sample[] {
    return this.items;
  }
}

export interface Sampler {
  readonly ring: SampleRing;
  stop(): void;
}

/** Samples `metrics` every `intervalMs` (at most one database read per sample: the queue's depth). */
export function startSampling(metrics: NodeMetrics, intervalMs: number): Sampler {
  const ring = new SampleRing(Math.max(2, Math.ceil(HOUR_MS / intervalMs)));
  let previous = { at: Date.now(), ...metrics.totals };
  let busy = false;
  const timer = setInterval(async () => {
    if (busy) return;
    busy = true;
    try {
      const now = Date.now();
      const seconds = Math.max(0.001, (now - previous.at) / 1000);
      const totals = { at: now, ...metrics.totals };
      let queueDepth: number | undefined;
      try {
        const tasks = await metrics.ctx.db.counts.tasks();
        queueDepth = tasks.filter((t) => t.state !== "dead").reduce((sum, t) => sum + t.count, 0);
      } catch {
        queueDepth = undefined;
      }
      ring.push({
        at: new Date(now),
        requestsPerSecond: (totals.requests - previous.requests) / seconds,
        bytesInPerSecond: (totals.bytesIn - previous.bytesIn) / seconds,
        bytesOutPerSecond: (totals.bytesOut - previous.bytesOut) / seconds,
        queueDepth,
      });
      previous = totals;
    } finally {
      busy = false;
    }
  }, intervalMs);
  timer.unref();
  return { ring, stop: () => clearInterval(timer) };
}
