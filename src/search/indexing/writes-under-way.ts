/**
 * Object writes that will commit soon (their bytes staged, their transaction not yet ended), counted so that a
 * batch of index writes (index-batches.ts) can wait a moment for them to join it instead of leaving each for a
 * transaction of its own. A lone write waits for nothing: it has ended before it asks to be indexed.
 */
export class WritesUnderWay {
  #count = 0;
  #wake: (() => void) | undefined;

  /** One more write under way; the function returned (safe to call more than once) says it has ended. */
  start(): () => void {
    this.#count++;
    let ended = false;
    return () => {
      if (ended) return;
      ended = true;
      this.#count--;
      if (this.#count === 0) this.#wake?.();
    };
  }

  /** Resolves once no write is under way, or after `maxMs`, whichever comes first (one waiter at a time). */
  settled(maxMs: number): Promise<void> {
    if (this.#count === 0) return Promise.resolve();
    return new Promise((resolve) => {
      const done = (): void => {
        clearTimeout(timer);
        if (this.#wake === done) this.#wake = undefined;
        resolve();
      };
      const timer = setTimeout(done, maxMs);
      this.#wake = done;
    });
  }
}
