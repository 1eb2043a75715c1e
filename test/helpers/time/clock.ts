/** A clock the test moves by hand: rules that read it see time pass without the test sleeping. */
import type { Clock } from "../../../src/types/clock.ts";

export class TestClock implements Clock {
  constructor(private current = Date.now()) {}

  now(): number {
    return this.current;
  }

  /** Moves time forward by `ms`. */
  advance(ms: number): void {
    this.current += ms;
  }
}
