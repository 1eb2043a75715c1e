/**
 * Word tokens of text fields, as Solr's standard tokenizer with lower-casing gives them closely enough for
 * DataONE's queries: runs of letters and digits, lower case. Queries against text fields use the same function.
 */
const WORD = /[\p{L}\p{N}]+(?:['’][\p{L}]+)?/gu;

export function tokenize(text: string): string[] {
  const words = text.toLowerCase().match(WORD) ?? [];
  // Only a word with an apostrophe needs its copy without it (most have none).
  for (let i = 0; i < words.length; i++) {
    const word = words[i] as string;
    if (word.includes("'") || word.includes("’")) words[i] = word.replace(/['’]/g, "");
  }
  return words;
}

/** Distinct tokens of several values. */
export function tokenSet(values: Iterable<string>): Set<string> {
  const out = new Set<string>();
  for (const value of values) for (const token of tokenize(value)) out.add(token);
  return out;
}
