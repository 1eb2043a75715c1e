/**
 * Text fields (text_general) are kept per document as terms, not as search_values rows: each token of field f
 * is the term `f__token` (field name lower-cased), and every text field a document has adds its mark `f__`
 * (for `f:*`). SQLite holds a document's terms in the FTS5 table `search_terms` (rowid = search_docs.term_id),
 * PostgreSQL in `search_docs.terms` (text[], GIN-indexed). A document's terms are written in one row, so
 * indexing touches a few pages instead of one per token. The conditions over them: src/search/store/term-conditions.ts.
 */

export const termOf = (field: string, token: string): string => `${field.toLowerCase()}__${token}`;
export const markOf = (field: string): string => `${field.toLowerCase()}__`;

/** The terms of one document: every token of every text field, and each field's mark. */
export function documentTerms(tokens: Map<string, Set<string>>): string[] {
  const out: string[] = [];
  for (const [field, set] of tokens) {
    out.push(markOf(field));
    for (const token of set) out.push(termOf(field, token));
  }
  return out;
}

export const MANY = Symbol("*");
export const ONE = Symbol("?");
/** Pieces of a wildcard term: literal text, MANY (`*`) or ONE (`?`). */
export type Pattern = (string | typeof MANY | typeof ONE)[];
