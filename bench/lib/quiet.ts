/**
 * How busy the machine is with other work: the share of all CPUs in use over a second while the benchmark
 * itself waits. Figures taken while other processes compete are unreliable; the runner says so.
 */
import { readFileSync } from "node:fs";

function cpuTimes(): { busy: number; total: number } {
  const line = readFileSync("/proc/stat", "utf8").split("\n")[0] ?? "";
  const fields = line.trim().split(/\s+/).slice(1).map(Number);
  const idle = (fields[3] ?? 0) + (fields[4] ?? 0);
  const total = fields.reduce((sum, v) => sum + v, 0);
  return { busy: total - idle, total };
}

/** Fraction (0..1) of the machine's CPU time used by anything over `ms` milliseconds. */
export async function backgroundLoad(ms = 1000): Promise<number> {
  try {
    const before = cpuTimes();
    await new Promise((resolve) => setTimeout(resolve, ms));
    const after = cpuTimes();
    const total = after.total - before.total;
    return total > 0 ? (after.busy - before.busy) / total : 0;
  } catch {
    return Number.NaN;
  }
}
