/**
 * The write lock's hand-off between a rebuild's SQLite writing threads. Without it a thread that finds the lock
 * taken is left to SQLite's busy handler, which sleeps 1, 2, 5, ... up to 100 ms between tries: the lock stays
 * free for tens of milliseconds after the other thread's commit. Here the waiting thread sleeps on a shared word
 * and is woken by the commit itself.
 */

/** A word shared by the writing threads: 1 while one of them writes. */
export function writerTurns(): Int32Array {
  return new Int32Array(new SharedArrayBuffer(4));
}

/** `work` (a transaction, synchronous underneath) once no other writing thread is inside its own. */
export async function inTurn<T>(turns: Int32Array | undefined, work: () => Promise<T>): Promise<T> {
  if (!turns) return work();
  while (Atomics.compareExchange(turns, 0, 0, 1) !== 0) Atomics.wait(turns, 0, 1, 100);
  try {
    return await work();
  } finally {
    Atomics.store(turns, 0, 0);
    Atomics.notify(turns, 0, 1);
  }
}
