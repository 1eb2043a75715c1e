/**
 * CPU-seconds per process for the benchmarks' notes. `postgresCpuSeconds`: those used so far by the PostgreSQL server's backends serving one database (Linux /proc; the server runs
 * on this machine). A backend's title reads "postgres: [cluster: ]user database host(port) state"; a backend that
 * ended between two readings is not counted, so measure around work done on a kept pool of connections.
 */
import { readdirSync, readFileSync } from "node:fs";
import { cpuSecondsOf } from "../processes.ts";

export function postgresCpuSeconds(databaseUrl: string | undefined): number {
  let seconds = 0;
  for (const used of postgresBackendsCpu(databaseUrl).values()) seconds += used;
  return seconds;
}

/** The CPU-seconds used so far by each backend (by pid) serving one database. */
export function postgresBackendsCpu(databaseUrl: string | undefined): Map<number, number> {
  const backends = new Map<number, number>();
  if (!databaseUrl) return backends;
  const database = new URL(databaseUrl).pathname.slice(1);
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const title = readFileSync(`/proc/${entry}/cmdline`, "utf8").replace(/\0/g, " ");
      if (!title.startsWith("postgres:") || !title.split(" ").includes(database)) continue;
      backends.set(Number(entry), cpuSecondsOf(Number(entry)));
    } catch {
      // the process ended while it was read
    }
  }
  return backends;
}

/**
 * The CPU-seconds a database's backends use from now until `stop()`, those connected meanwhile included (the
 * backends are read every `everyMs`: a backend that ends loses at most its last interval).
 */
export function sampleBackendsCpu(databaseUrl: string | undefined, everyMs = 200): { stop(): number } {
  const first = postgresBackendsCpu(databaseUrl);
  const last = new Map(first);
  const read = () => {
    for (const [pid, seconds] of postgresBackendsCpu(databaseUrl)) last.set(pid, seconds);
  };
  const timer = setInterval(read, everyMs);
  return {
    stop() {
      clearInterval(timer);
      read();
      let seconds = 0;
      for (const [pid, used] of last) seconds += used - (first.get(pid) ?? 0);
      return seconds;
    },
  };
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
