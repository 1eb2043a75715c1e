/**
 * When `d1node upload` tries again: after a lost connection or an answer a later try may change (a node
 * restarting, busy or locked), never after one that cannot (credentials, a refused document, a full node, a URL
 * that is not a Member Node's API); each retry announced with one line on standard error.
 */
import { setTimeout as sleep } from "node:timers/promises";

/** Pauses before each retry (ms): doubling to 30 s, then every 30 s for about ten minutes. */
export const RETRY_DELAYS = [1, 2, 4, 8, 16, ...Array.from({ length: 20 }, () => 30)].map((s) => s * 1000);

/**
 * Whether an answer (`status` 0: none, the connection was lost) may be different on a later try: no answer, 409
 * (a tus offset another request moved), 423 (locked), 429 (too many requests), and server errors other than 501
 * (not implemented: the URL is not a Member Node's API) and InsufficientResources (the node is full).
 */
export function mayChangeOnRetry(status: number, body = ""): boolean {
  if (status === 0) return true;
  if (status === 409 || status === 423 || status === 429) return true;
  if (status < 500 || status === 501) return false;
  return !/InsufficientResources|ENOSPC/.test(body);
}

/** Says on standard error why and when `what` is tried again, then waits. */
export async function announceRetry(what: string, status: number, delayMs: number): Promise<void> {
  process.stderr.write(`${retryLine(what, status, delayMs)}\n`);
  await sleep(delayMs);
}

/** The retry's line: "upload of x: connection lost, retrying in 4 s". */
export function retryLine(what: string, status: number, delayMs: number): string {
  const why = status === 0 ? "connection lost" : `the node answered HTTP ${status}`;
  return `${what}: ${why}, retrying in ${Math.round(delayMs / 1000)} s`;
}
