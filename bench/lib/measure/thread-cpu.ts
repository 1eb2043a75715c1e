/**
 * CPU-seconds per thread of this process from now until `stop()` (Linux /proc/self/task), threads started
 * meanwhile included: the threads are read every `everyMs`, so a thread that ends loses at most its last
 * interval. For the benchmarks' notes: which thread bounds a pipeline (a rebuild's writing thread, say).
 */
import { readdirSync } from "node:fs";
import { threadCpuSecondsOf } from "../processes.ts";

function threadsCpu(): Map<number, number> {
  const used = new Map<number, number>();
  for (const entry of readdirSync("/proc/self/task")) {
    try {
      used.set(Number(entry), threadCpuSecondsOf(process.pid, Number(entry)));
    } catch {
      // the thread ended while it was read
    }
  }
  return used;
}

/** `stop()` gives each thread's CPU-seconds over the while, the busiest first. */
export function sampleThreadsCpu(everyMs = 500): { stop(): number[] } {
  const first = threadsCpu();
  const last = new Map(first);
  const read = () => {
    for (const [tid, seconds] of threadsCpu()) last.set(tid, seconds);
  };
  const timer = setInterval(read, everyMs);
  return {
    stop() {
      clearInterval(timer);
      read();
      return [...last].map(([tid, used]) => used - (first.get(tid) ?? 0)).sort((a, b) => b - a);
    },
  };
}
