/**
 * How the memory reads a structure whole (a clause's documents, a field's values): in chunks of rows (keyset
 * pages), each turned into the structure being built as it arrives. After each chunk the budget is looked at,
 * counting what the memory holds and what is being built, and the event loop gets a turn: a read holds one
 * chunk beside what it builds whatever the number of documents, stops as soon as the memory would not fit,
 * and never keeps requests waiting for longer than a chunk.
 */
import { setImmediate as nextTurn } from "node:timers/promises";

/** Thrown by a read that would take the memory over its budget: searches are then answered by SQL alone. */
export class OverBudget extends Error {
  constructor(
    readonly bytes: number,
    readonly budget: number,
  ) {
    super(`the search engine's memory would hold ${bytes} bytes, over its budget of ${budget}`);
    this.name = "OverBudget";
  }
}

/**
 * Rows turned into the structure between turns of the event loop: a PID's number and a value's ordinal are map
 * lookups (about 1-2 us each), so a chunk of 100,000 rows would keep requests waiting for a few hundred ms.
 */
const ROWS_PER_TURN = 10_000;

export interface ChunkedReadOptions {
  /** Bytes the memory may hold (default: no bound). */
  budget?: number;
  /** Rows per chunk (default: the database reads' own, 100,000; tests make it small). */
  chunk?: number;
}

export class ChunkedReads {
  readonly chunk: number | undefined;
  private readonly budget: number;

  /** `held`: the bytes the memory holds now (memory/index.ts `bytes`). */
  constructor(
    private readonly held: () => number,
    options: ChunkedReadOptions = {},
  ) {
    this.chunk = options.chunk;
    this.budget = options.budget ?? Number.POSITIVE_INFINITY;
  }

  /** Throws OverBudget when the memory, with `building` bytes more, would be over its budget. */
  check(building: number): void {
    const bytes = this.held() + building;
    if (bytes > this.budget) throw new OverBudget(bytes, this.budget);
  }

  /** Calls `take(i)` for each row of a chunk of `rows`, the event loop given a turn every `ROWS_PER_TURN` rows. */
  async each(rows: number, take: (i: number) => void): Promise<void> {
    for (let from = 0; from < rows; from += ROWS_PER_TURN) {
      if (from > 0) await nextTurn();
      const to = Math.min(rows, from + ROWS_PER_TURN);
      for (let i = from; i < to; i++) take(i);
    }
  }

  /** After a chunk: the budget checked with `building` bytes not yet held, then a turn of the event loop. */
  async afterChunk(building: number): Promise<void> {
    this.check(building);
    await nextTurn();
  }
}
