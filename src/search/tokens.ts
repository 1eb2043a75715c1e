/**
 * Word tokens of text fields, as Solr's standard tokenizer with lower-casing gives them closely enough for
 * DataONE's queries: runs of letters and digits, lower case. Queries against text fields use the same function.
 */
const WORD = /[\p{L}\p{N}]+(?:['’][\p{L}]+)?/gu;

export function tokenize(text: string): string[] {
  return (text.toLowerCase().match(WORD) ?? []).map((w) => w.replace(/['’]/g, ""));
}

/** Distinct tokens of several values. */
export function tokenSet(values: Iterable<string>): Set<string> {
  const out = new Set<string>();
  for (const value of values) for (const token of tokenize(value)) out.add(token);
  return out;
}
