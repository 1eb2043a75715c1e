/** In-process mutual exclusion per key: `run(key, fn)` waits for earlier work on the same key. */
export interface KeyedMutex {
  run<T>(key: string, work: () => Promise<T>): Promise<T>;
}

export function createKeyedMutex(): KeyedMutex {
  const tails = new Map<string, Promise<unknown>>();
  return {
    async run(key, work) {
      const previous = tails.get(key) ?? Promise.resolve();
      const current = previous.then(work, work);
      const tail = current.catch(() => undefined);
      tails.set(key, tail);
      try {
        return await current;
      } finally {
        if (tails.get(key) === tail) tails.delete(key);
      }
    },
  };
}
