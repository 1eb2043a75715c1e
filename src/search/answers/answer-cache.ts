/**
 * Serialized answers (Solr JSON or XML), kept like the results they are made of (search-cache.ts): the same
 * request from a caller with the same subjects gets the same bytes until the index changes, so a popular page
 * (MetacatUI's search page: megabytes over millions of documents) is not serialized again for every visitor.
 * Only QTime differs, so an answer is kept as the UTF-8 bytes of its first reply with the place of QTime's
 * digits: outside V8's heap (no collection copies or marks them); a miss makes one copy of the written answer
 * (the reply, also kept), a hit one copy around a new QTime.
 */
import type { SearchCache } from "./search-cache.ts";

/** A QTime no answer has: where an answer's QTime is found. */
const MARK = -987_654_321;
const MARK_BYTES = Buffer.from(String(MARK));

interface Kept {
  docs: unknown[];
  reply: Buffer;
  /** Where QTime's digits are in `reply`, and how many there are. */
  at: number;
  digits: number;
}

/** Written bytes, valid only while `take` runs (a writer's buffer, reused by the next answer). */
export type WriteAnswer = (qtime: number, take: (bytes: Buffer) => Buffer) => Buffer;

/**
 * The answer under `key` as UTF-8, from the cache or made by `answer()`: its `write` must write `qtime` as QTime
 * once, and it says how many documents the answer lists; `began` is when the request started (QTime counts from
 * it).
 */
export async function cachedAnswer(
  cache: SearchCache,
  key: string,
  began: number,
  answer: () => Promise<{ docs: unknown[]; write: WriteAnswer }>,
): Promise<Buffer> {
  const generation = cache.generation();
  const qtime = () => Buffer.from(String(Math.round(performance.now() - began)));
  const hit = cache.get<Kept>("answer", key);
  if (hit) {
    const { reply, at, digits } = hit;
    return Buffer.concat([reply.subarray(0, at), qtime(), reply.subarray(at + digits)]);
  }
  const made = await answer();
  return made.write(MARK, (marked) => {
    const at = marked.indexOf(MARK_BYTES);
    if (at < 0) return Buffer.from(marked);
    const time = qtime();
    const reply = Buffer.allocUnsafe(marked.length - MARK_BYTES.length + time.length);
    marked.copy(reply, 0, 0, at);
    time.copy(reply, at);
    marked.copy(reply, at + time.length, at + MARK_BYTES.length);
    const kept: Kept = { docs: made.docs, reply, at, digits: time.length };
    cache.set("answer", key, kept, generation, reply.length);
    return reply;
  });
}
