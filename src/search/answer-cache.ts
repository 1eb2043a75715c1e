/**
 * Serialized answers (Solr JSON or XML), kept like the results they are made of (search-cache.ts): the same
 * request from a caller with the same subjects gets the same bytes until the index changes, so a popular page
 * (MetacatUI's search page: megabytes over millions of documents) is not serialized again for every visitor.
 * Only QTime differs, so an answer is kept as the bytes around it. Answers are bytes (UTF-8), not strings:
 * they are sent as they are, and kept outside V8's heap, where the collector neither marks nor moves them.
 */
import type { SearchCache } from "./search-cache.ts";

/** A QTime no answer has: where an answer is cut in two. */
const MARK = String(-987_654_321);

interface Kept {
  docs: unknown[];
  before: Buffer;
  after: Buffer;
}

/**
 * The answer under `key`, from the cache or made by `answer(qtime)` (which must write `qtime` as QTime once, and
 * say how many documents it lists); `began` is when the request started (QTime counts from it).
 */
export async function cachedAnswer(
  cache: SearchCache,
  key: string,
  began: number,
  answer: () => Promise<{ docs: unknown[]; write: (qtime: number) => string }>,
): Promise<Buffer> {
  const generation = cache.generation();
  const hit = cache.get<Kept>("answer", key);
  const qtime = () => Buffer.from(String(Math.round(performance.now() - began)));
  if (hit) return Buffer.concat([hit.before, qtime(), hit.after]);
  const made = await answer();
  const marked = made.write(Number(MARK));
  const at = marked.indexOf(MARK);
  if (at < 0) return Buffer.from(made.write(Math.round(performance.now() - began)));
  const kept: Kept = {
    docs: made.docs,
    before: Buffer.from(marked.slice(0, at)),
    after: Buffer.from(marked.slice(at + MARK.length)),
  };
  cache.set("answer", key, kept, generation, kept.before.length + kept.after.length);
  return Buffer.concat([kept.before, qtime(), kept.after]);
}
