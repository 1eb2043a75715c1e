/**
 * CPU-seconds per process for the benchmarks' notes. `postgresCpuSeconds`: those used so far by the PostgreSQL server's backends serving one database (Linux /proc; the server runs
 * on this machine). A backend's title reads "postgres: [cluster: ]user database host(port) state"; a backend that
 * ended between two readings is not counted, so measure around work done on a kept pool of connections.
 */
import { readdirSync, readFileSync } from "node:fs";
import { cpuSecondsOf } from "./processes.ts";

export function postgresCpuSeconds(databaseUrl: string | undefined): number {
  if (!databaseUrl) return 0;
  const database = new URL(databaseUrl).pathname.slice(1);
  let seconds = 0;
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const title = readFileSync(`/proc/${entry}/cmdline`, "utf8").replace(/\0/g, " ");
      if (!title.startsWith("postgres:") || !title.split(" ").includes(database)) continue;
      seconds += cpuSecondsOf(Number(entry));
    } catch {
      // the process ended while it was read
    }
  }
  return seconds;
}

/** This process's CPU-seconds so far (user + system). */
export function ownCpuSeconds(): number {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1e6;
}

/**
 * CPU-seconds of each named part from now until `text()` is called, e.g. "CN 12.1, MN 8.0". Each part reads its
 * own counter (this process, a child's pid, a database's backends).
 */
export function cpuSplit(parts: Record<string, () => number>): { text(): string; total(): number } {
  const before = Object.entries(parts).map(([name, read]) => ({ name, read, at: read() }));
  const used = () => before.map((p) => ({ name: p.name, seconds: p.read() - p.at }));
  return {
    text: () =>
      used()
        .map((p) => `${p.name} ${p.seconds.toFixed(1)}`)
        .join(", "),
    total: () => used().reduce((sum, p) => sum + p.seconds, 0),
  };
}
