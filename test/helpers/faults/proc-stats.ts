/** A process's resident memory and CPU time, read from /proc (Linux), for tests that watch a node process. */
import { readFileSync } from "node:fs";

/** Resident set size in bytes (0 once the process is gone). */
export function rssOf(pid: number | undefined): number {
  try {
    const status = readFileSync(`/proc/${pid}/status`, "utf8");
    return Number(/VmRSS:\s+(\d+) kB/.exec(status)?.[1] ?? 0) * 1024;
  } catch {
    return 0;
  }
}

/** User and system CPU seconds of a process so far (/proc/<pid>/stat fields 14 and 15, in clock ticks). */
export function cpuSecondsOf(pid: number | undefined): string {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]?.split(" ") ?? [];
    return ((Number(fields[11]) + Number(fields[12])) / 100).toFixed(0);
  } catch {
    return "?";
  }
}
