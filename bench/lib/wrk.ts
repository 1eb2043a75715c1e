/** Run wrk (Debian package `wrk`) against a URL and read its requests/second. */
import { execFile } from "node:child_process";
import { promisify } from "node:util";

const run = promisify(execFile);

export interface WrkResult {
  requestsPerSecond: number;
  /** Requests completed in the run. */
  requests: number;
  non2xx: number;
  output: string;
}

export async function wrk(
  url: string,
  options: { connections: number; seconds: number; threads?: number; script?: string },
): Promise<WrkResult> {
  const args = [
    `-t${options.threads ?? 1}`,
    `-c${options.connections}`,
    `-d${options.seconds}s`,
    ...(options.script ? ["-s", options.script] : []),
    url,
  ];
  const { stdout } = await run("wrk", args, { maxBuffer: 1 << 20 });
  const rps = Number(/Requests\/sec:\s+([\d.]+)/.exec(stdout)?.[1] ?? Number.NaN);
  const requests = Number(/(\d+) requests in/.exec(stdout)?.[1] ?? Number.NaN);
  const non2xx = Number(/Non-2xx or 3xx responses:\s+(\d+)/.exec(stdout)?.[1] ?? 0);
  return { requestsPerSecond: rps, requests, non2xx, output: stdout };
}
