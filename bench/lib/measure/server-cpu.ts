/**
 * The CPU seconds a PostgreSQL backend has used, read from /proc when the server runs on this machine (null
 * otherwise): the server's share of a bulk load, next to Node's own process.cpuUsage().
 */
import { readFile } from "node:fs/promises";
import type pg from "pg";

const TICKS_PER_SECOND = 100;

export async function backendPid(client: pg.Client): Promise<number> {
  const result = await client.query<{ pid: number }>("select pg_backend_pid() as pid");
  return result.rows[0]?.pid ?? 0;
}

/** utime + stime of a process, in seconds; null when it cannot be read (a server elsewhere). */
export async function processCpuSeconds(pid: number): Promise<number | null> {
  try {
    const stat = await readFile(`/proc/${pid}/stat`, "utf8");
    // Fields after the command name (which may hold spaces) start after its closing parenthesis.
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return (Number(fields[11]) + Number(fields[12])) / TICKS_PER_SECOND;
  } catch {
    return null;
  }
}

/** The CPU seconds a set of backends used while `work` ran (null if any cannot be read). */
export async function serverCpuDuring<T>(
  pids: number[],
  work: () => Promise<T>,
): Promise<{ result: T; cpu: number | null }> {
  const before = await Promise.all(pids.map(processCpuSeconds));
  const result = await work();
  const after = await Promise.all(pids.map(processCpuSeconds));
  let cpu: number | null = 0;
  for (let i = 0; i < pids.length; i++) {
    const b = before[i];
    const a = after[i];
    cpu = cpu === null || b == null || a == null ? null : cpu + a - b;
  }
  return { result, cpu };
}
