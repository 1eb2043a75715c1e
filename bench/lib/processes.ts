/** Child processes for benchmarks: a node (or baseline server) in its own process, and its memory. */
import { type ChildProcess, spawn } from "node:child_process";
import { readFileSync } from "node:fs";

export interface Served {
  child: ChildProcess;
  url: string;
  /** Everything the server printed on its standard output so far. */
  printed(): string;
  stop(): Promise<void>;
}

/**
 * Spawn a server that prints a line matching `serving <url>` once it listens: `node args...`, or with
 * `command`, that executable itself (so that its first line's interpreter flags apply, as when a user runs it).
 */
export async function serve(args: string[], env: NodeJS.ProcessEnv = {}, command?: string): Promise<Served> {
  const child = spawn(command ?? process.execPath, args, {
    stdio: ["ignore", "pipe", "inherit"],
    env: { ...process.env, ...env },
  });
  let output = "";
  const url = await new Promise<string>((resolve, reject) => {
    child.stdout?.on("data", (chunk: Buffer) => {
      output += chunk.toString();
      const match = /serving (\S+)/.exec(output);
      if (match?.[1]) resolve(match[1]);
    });
    child.once("exit", (code) => reject(new Error(`server exited with ${code}: ${output}`)));
  });
  return {
    child,
    url,
    printed: () => output,
    stop: () =>
      new Promise((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once("exit", () => resolve());
        child.kill("SIGTERM");
      }),
  };
}

/** Resident set size of a process in bytes (Linux /proc). */
export function rssOf(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  const kb = Number(/VmRSS:\s+(\d+)\s+kB/.exec(status)?.[1] ?? 0);
  return kb * 1024;
}

/** CPU-seconds (user + system, all threads) a process has used so far (Linux /proc; clock ticks of 10 ms). */
export function cpuSecondsOf(pid: number): number {
  return cpuSecondsIn(`/proc/${pid}/stat`);
}

/** CPU-seconds (user + system) one thread `tid` of process `pid` has used so far (Linux /proc). */
export function threadCpuSecondsOf(pid: number, tid: number): number {
  return cpuSecondsIn(`/proc/${pid}/task/${tid}/stat`);
}

function cpuSecondsIn(statFile: string): number {
  const stat = readFileSync(statFile, "utf8");
  // Fields after the command name (which may hold spaces): state is field 3, utime 14, stime 15.
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

/** One core kept busy by another process (competing CPU load) until stopped. */
export function busyCore(): { stop(): Promise<void> } {
  const child = spawn(process.execPath, ["-e", "for (;;) {}"], { stdio: "ignore" });
  return {
    stop: () =>
      new Promise((resolve) => {
        if (child.exitCode !== null || child.signalCode !== null) return resolve();
        child.once("exit", () => resolve());
        child.kill("SIGKILL");
      }),
  };
}

/** Sample a process's RSS every `ms` until stopped; returns the peak. */
export function sampleRss(pid: number, ms = 50): { stop(): number } {
  let peak = 0;
  const timer = setInterval(() => {
    try {
      peak = Math.max(peak, rssOf(pid));
    } catch {
      // the process has gone
    }
  }, ms);
  return {
    stop() {
      clearInterval(timer);
      return peak;
    },
  };
}

export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2
    ? (sorted[mid] as number)
    : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2;
}
