/**
 * The documents a facet count visits, listed once per query: the matching ones, or, when more than half match,
 * the others (their counts are then taken from the totals: columns.ts). Every facet field then reads the same
 * list instead of each decoding the bitset again (ten fields: ten passes over every word and bit).
 */
import { ScratchInts } from "../answers/scratch-ints.ts";
import type { Bitset } from "./bitset.ts";

const listed = new ScratchInts();

export interface CountedDocs {
  /** Document numbers, increasing (a scratch array: read before the next query lists its documents). */
  docs: Int32Array;
  /** Whether they are the documents not matching (counts are the totals less theirs). */
  others: boolean;
}

/**
 * The documents of `matches` (`matching` of them) among documents 0 .. docCount - 1, or the others when they
 * are fewer.
 */
export function countedDocs(matches: Bitset, matching: number, docCount: number): CountedDocs {
  const others = matching * 2 >= docCount;
  const length = others ? docCount - matching : matching;
  const docs = listed.take(length).subarray(0, length);
  const words = Math.ceil(docCount / 32);
  const setWords = matches.words;
  const lastBits = docCount % 32;
  let n = 0;
  for (let i = 0; i < words; i++) {
    let w = i < setWords.length ? (setWords[i] as number) : 0;
    if (others) {
      w = ~w;
      if (i === words - 1 && lastBits !== 0) w &= (1 << lastBits) - 1;
    }
    while (w !== 0 && n < docs.length) {
      const low = w & -w;
      docs[n++] = (i << 5) + 31 - Math.clz32(low);
      w ^= low;
    }
  }
  return { docs: n === docs.length ? docs : docs.subarray(0, n), others };
}
