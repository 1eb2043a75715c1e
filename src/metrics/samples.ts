/**
 * The status page's plots: every `intervalMs` the node notes its request and byte rates since the last sample
 * and the task queue's depth, in a ring holding the last hour. Memory only; it starts empty with the process.
 */
import { type Clock, systemClock } from "../types/clock.ts";
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
  /** Notes one sample: the rates since the previous one, as the sampler's clock measures the time between. */
  sample(): Promise<void>;
  stop(): void;
}

/** A sampler of `metrics` that samples when `sample()` is called (at most one database read: the queue's depth). */
export function createSampler(metrics: NodeMetrics, intervalMs: number, clock: Clock = systemClock): Sampler {
  const ring = new SampleRing(Math.max(2, Math.ceil(HOUR_MS / intervalMs)));
  let previous = { at: clock.now(), ...metrics.totals };
  let busy = false;
  const sample = async () => {
    if (busy) return;
    busy = true;
    try {
      const now = clock.now();
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
  };
  return { ring, sample, stop: () => undefined };
}

/** Samples `metrics` every `intervalMs` by the system clock. */
export function startSampling(metrics: NodeMetrics, intervalMs: number): Sampler {
  const sampler = createSampler(metrics, intervalMs);
  const timer = setInterval(sampler.sample, intervalMs);
  timer.unref();
  return { ...sampler, stop: () => clearInterval(timer) };
}
