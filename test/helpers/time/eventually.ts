/** Polling with a deadline, for effects that background work makes visible a little later. */
import assert from "node:assert/strict";
import { setTimeout as sleep } from "node:timers/promises";

/** Polls `probe` until it returns a value (errors count as "not yet"); fails naming `what` after `ms`. */
export async function eventually<T>(
  what: string,
  probe: () => Promise<T | undefined>,
  ms = 30_000,
): Promise<T> {
  const deadline = Date.now() + ms;
  let last: unknown;
  for (;;) {
    try {
      const value = await probe();
      if (value !== undefined) return value;
    } catch (error) {
      last = error;
    }
    if (Date.now() > deadline) assert.fail(`${what}: not within ${ms} ms (${String(last ?? "no answer")})`);
    await sleep(50);
  }
}

/** Polls `read` until `accept` holds; fails with the last value after `ms`. */
export async function pollUntil<T>(
  read: () => Promise<T>,
  accept: (value: T) => boolean,
  ms = 10_000,
): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await read();
    if (accept(value)) return value;
    if (Date.now() > deadline) assert.fail(`still ${JSON.stringify(value)} after ${ms} ms`);
    await sleep(20);
  }
}

/** Waits until the clock has passed `after` (default: now), so that the next timestamp differs from the last. */
export async function clockPast(after = Date.now()): Promise<void> {
  while (Date.now() <= after) await new Promise<void>((resolve) => setImmediate(resolve));
}
