/**
 * The time rules read (task due times, leases, retry delays): the system clock in a node, a clock the tests
 * move forward (test/helpers/time/clock.ts) so that they check "not before its time" and "after it" without
 * waiting.
 */
export interface Clock {
  /** Milliseconds since the epoch, as Date.now(). */
  now(): number;
}

export const systemClock: Clock = { now: () => Date.now() };
