/**
 * What a long read (the search engine's memory, from the database or a snapshot) costs the rest of the process
 * while it runs: this process's RSS sampled (peak), the event loop's longest delay (how long a request arriving
 * meanwhile waited before it was even looked at), and a small request timed over and over (`ping`).
 */
import { monitorEventLoopDelay } from "node:perf_hooks";

const MB = 1024 * 1024;

export interface ReadWatch {
  /** Stops watching: the figures, and a note for the report. */
  stop(): Promise<ReadFigures>;
}

export interface ReadFigures {
  rssBefore: number;
  rssPeak: number;
  rssAfter: number;
  heapUsed: number;
  /** The event loop's longest delay and its 99th percentile (ms). */
  stallMaxMs: number;
  stallP99Ms: number;
  /** The ping's latencies (ms): how many, median, slowest. */
  pings: number;
  pingP50Ms: number;
  pingMaxMs: number;
  note: string;
}

export function watchRead(ping: () => Promise<void>, sampleMs = 50): ReadWatch {
  const delay = monitorEventLoopDelay({ resolution: 10 });
  delay.enable();
  const rssBefore = process.memoryUsage().rss;
  let rssPeak = rssBefore;
  const timer = setInterval(() => {
    rssPeak = Math.max(rssPeak, process.memoryUsage().rss);
  }, sampleMs);
  let stopped = false;
  const latencies: number[] = [];
  const pinging = (async () => {
    while (!stopped) {
      const began = performance.now();
      await ping();
      latencies.push(performance.now() - began);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  })();
  return {
    async stop() {
      stopped = true;
      await pinging;
      clearInterval(timer);
      delay.disable();
      const { rss: rssAfter, heapUsed } = process.memoryUsage();
      rssPeak = Math.max(rssPeak, rssAfter);
      const sorted = [...latencies].sort((a, b) => a - b);
      const figures = {
        rssBefore,
        rssPeak,
        rssAfter,
        heapUsed,
        stallMaxMs: delay.max / 1e6,
        stallP99Ms: delay.percentile(99) / 1e6,
        pings: sorted.length,
        pingP50Ms: sorted[Math.floor(sorted.length / 2)] ?? 0,
        pingMaxMs: sorted[sorted.length - 1] ?? 0,
      };
      const mb = (n: number) => (n / MB).toFixed(0);
      const note = `RSS ${mb(rssBefore)} -> peak ${mb(rssPeak)} -> ${mb(rssAfter)} MB (V8 heap used ${mb(heapUsed)} MB); event loop delay max ${figures.stallMaxMs.toFixed(0)} ms (p99 ${figures.stallP99Ms.toFixed(0)} ms); a one-row query during the read: ${figures.pings} runs, p50 ${figures.pingP50Ms.toFixed(1)} ms, slowest ${figures.pingMaxMs.toFixed(0)} ms`;
      return { ...figures, note };
    },
  };
}
