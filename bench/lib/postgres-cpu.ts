/**
 * CPU-seconds used so far by the PostgreSQL server's backends serving one database (Linux /proc; the server runs
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
