/**
 * The node process's resident memory (VmRSS) and open file descriptors, sampled every few seconds from /proc,
 * and the RSS trend: the least-squares slope over the second half of the run, in MB per 10 minutes.
 */
import { readdirSync } from "node:fs";
import { rssOf } from "../lib/processes.ts";

export interface Sample {
  /** Seconds since the soak started. */
  at: number;
  rssMb: number;
  fds: number;
}

export interface MemoryFigures {
  sampleCount: number;
  rssStartMb: number;
  rssMaxMb: number;
  rssEndMb: number;
  /** Slope of RSS over the second half, MB per 10 minutes. */
  rssTrendMbPer10Min: number;
  fdsStart: number;
  fdsMax: number;
  fdsEnd: number;
}

export class Sampler {
  readonly samples: Sample[] = [];
  private readonly timer: NodeJS.Timeout;
  private readonly started = Date.now();

  constructor(
    private readonly pid: number,
    everyMs = 5000,
  ) {
    this.take();
    this.timer = setInterval(() => this.take(), everyMs);
  }

  take(): Sample | undefined {
    try {
      const sample = {
        at: (Date.now() - this.started) / 1000,
        rssMb: rssOf(this.pid) / 1e6,
        fds: readdirSync(`/proc/${this.pid}/fd`).length,
      };
      this.samples.push(sample);
      return sample;
    } catch {
      return undefined; // the process has gone
    }
  }

  latest(): Sample | undefined {
    return this.samples.at(-1);
  }

  stop(): MemoryFigures {
    clearInterval(this.timer);
    this.take();
    return figures(this.samples);
  }
}

export function figures(samples: readonly Sample[]): MemoryFigures {
  const first = samples[0] ?? { at: 0, rssMb: 0, fds: 0 };
  const last = samples.at(-1) ?? first;
  const half = samples.filter((s) => s.at >= last.at / 2);
  return {
    sampleCount: samples.length,
    rssStartMb: first.rssMb,
    rssMaxMb: Math.max(...samples.map((s) => s.rssMb)),
    rssEndMb: last.rssMb,
    rssTrendMbPer10Min: slope(half.map((s) => [s.at, s.rssMb])) * 600,
    fdsStart: first.fds,
    fdsMax: Math.max(...samples.map((s) => s.fds)),
    fdsEnd: last.fds,
  };
}

/** Least-squares slope of y over x (0 with fewer than two points). */
export function slope(points: readonly (readonly [number, number])[]): number {
  const n = points.length;
  if (n < 2) return 0;
  const mx = points.reduce((s, [x]) => s + x, 0) / n;
  const my = points.reduce((s, [, y]) => s + y, 0) / n;
  let num = 0;
  let den = 0;
  for (const [x, y] of points) {
    num += (x - mx) * (y - my);
    den += (x - mx) ** 2;
  }
  return den === 0 ? 0 : num / den;
}
