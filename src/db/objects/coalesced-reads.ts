/**
 * Single-row reads by key that arrive in the same turn of the event loop answered by one query: a Member Node
 * serving a harvest gets several getSystemMetadata requests at once (one per connection the CN keeps busy), and
 * one statement for all of them saves a round trip, a statement's parse-bind-execute and its result set per
 * object. A read waits at most until the loop's check phase (setImmediate), after the I/O callbacks of that turn.
 */
export type ReadMany<Row> = (keys: string[]) => Promise<Map<string, Row>>;

export function coalescedReads<Row>(
  readOne: (key: string) => Promise<Row | undefined>,
  readMany: ReadMany<Row>,
): (key: string) => Promise<Row | undefined> {
  let waiting = new Map<string, { resolve(row: Row | undefined): void; reject(error: unknown): void }[]>();

  const flush = async () => {
    const batch = waiting;
    waiting = new Map();
    const keys = [...batch.keys()];
    try {
      const rows =
        keys.length === 1
          ? new Map([[keys[0] as string, await readOne(keys[0] as string)]])
          : await readMany(keys);
      for (const [key, readers] of batch) for (const reader of readers) reader.resolve(rows.get(key));
    } catch (error) {
      for (const readers of batch.values()) for (const reader of readers) reader.reject(error);
    }
  };

  return (key) =>
    new Promise((resolve, reject) => {
      if (waiting.size === 0) setImmediate(() => void flush());
      const readers = waiting.get(key);
      if (readers) readers.push({ resolve, reject });
      else waiting.set(key, [{ resolve, reject }]);
    });
}
