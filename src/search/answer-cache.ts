/**
 * Serialized answers (Solr JSON or XML), kept like the results they are made of (search-cache.ts): the same
 * request from a caller with the same subjects gets the same bytes until the index changes, so a popular page
 * (MetacatUI's search page: megabytes over millions of documents) is not serialized again for every visitor.
 * Only QTime differs, so an answer is kept as its UTF-8 bytes in two pieces around it: outside V8's heap (no
 * collection copies or marks them), and put together again by one copy.
 */
import type { SearchCache } from "./search-cache.ts";

/** A QTime no answer has: where an answer is cut in two. */
const MARK = -987_654_321;
const MARK_BYTES = Buffer.from(String(MARK));

interface Kept {
  docs: unknown[];
  before: Buffer;
  after: Buffer;
}

/**
 * The answer under `key` as UTF-8, from the cache or made by `answer(qtime)` (which must write `qtime` as QTime
 * once, as UTF-8, and say how many documents it lists); `began` is when the request started (QTime counts from it).
 */
export async function cachedAnswer(
  cache: SearchCache,
  key: string,
  began: number,
  answer: () => Promise<{ docs: unknown[]; write: (qtime: number) => Buffer }>,
): Promise<Buffer> {
  const generation = cache.generation();
  const hit = cache.get<Kept>("answer", key);
  const around = ({ before, after }: { before: Buffer; after: Buffer }) =>
    Buffer.concat([before, Buffer.from(String(Math.round(performance.now() - began))), after]);
  if (hit) return around(hit);
  const made = await answer();
  const marked = made.write(MARK);
  const at = marked.indexOf(MARK_BYTES);
  if (at >= 0) {
    const kept: Kept = {
      docs: made.docs,
      before: marked.subarray(0, at),
      after: marked.subarray(at + MARK_BYTES.length),
    };
    cache.set("answer", key, kept, generation, kept.before.length + kept.after.length);
    return around(kept);
  }
  return made.write(Math.round(performance.now() - began));
}
