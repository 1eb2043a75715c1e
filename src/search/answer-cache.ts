/**
 * Serialized answers (Solr JSON or XML), kept like the results they are made of (search-cache.ts): the same
 * request from a caller with the same subjects gets the same bytes until the index changes, so a popular page
 * (MetacatUI's search page: megabytes over millions of documents) is not serialized again for every visitor.
 * Only QTime differs, so an answer is kept in two pieces around it.
 */
import type { SearchCache } from "./search-cache.ts";

/** A QTime no answer has: where an answer is cut in two. */
const MARK = -987_654_321;

interface Kept {
  docs: unknown[];
  before: string;
  after: string;
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
): Promise<string> {
  const generation = cache.generation();
  const hit = cache.get<Kept>("answer", key);
  const qtime = () => String(Math.round(performance.now() - began));
  if (hit) return `${hit.before}${qtime()}${hit.after}`;
  const made = await answer();
  const marked = made.write(MARK);
  const at = marked.indexOf(String(MARK));
  if (at >= 0) {
    const before = marked.slice(0, at);
    const after = marked.slice(at + String(MARK).length);
    const kept: Kept = { docs: made.docs, before, after };
    // Counted in characters: UTF-8 bytes for the ASCII that Solr's JSON and XML are nearly all made of.
    cache.set("answer", key, kept, generation, before.length + after.length);
    return `${before}${qtime()}${after}`;
  }
  return made.write(Math.round(performance.now() - began));
}
