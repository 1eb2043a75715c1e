/**
 * Conditions over the text fields' terms (src/search/schema/terms.ts): an FTS5 query of `search_terms` on SQLite, the
 * `search_docs.terms` array on PostgreSQL.
 */
import { sql } from "kysely";
import { MANY, markOf, ONE, type Pattern } from "../schema/terms.ts";
import type { Condition, SqlDialect } from "./conditions.ts";

/** FTS5 query text for one exact term (tokens are letters and digits, so quoting is enough). */
const ftsTerm = (term: string) => `"${term}"`;

/** Documents holding every one of `terms`. */
export function hasTerms(dialect: SqlDialect, terms: string[]): Condition {
  if (dialect === "postgres") return sql`d.terms @> cast(${terms} as text[])`;
  return sql`d.term_id in (select rowid from search_terms where search_terms match ${terms.map(ftsTerm).join(" AND ")})`;
}

/**
 * Documents with a token of `field` matching the pattern (pieces lower-cased by the caller). A trailing `*`
 * after literal text is an FTS5 prefix query; other patterns look the terms up in the vocabulary first.
 */
export function termLike(dialect: SqlDialect, field: string, pattern: Pattern): Condition {
  const mark = markOf(field);
  if (dialect === "postgres") {
    const like = pattern
      .map((p) => (p === MANY ? "%" : p === ONE ? "_" : p.replace(/[\\%_]/g, (c) => `\\${c}`)))
      .join("");
    return sql`exists (select 1 from unnest(d.terms) t
      where t like ${`${mark.replace(/_/g, "\\_")}${like}`} escape '\\' and t <> ${mark})`;
  }
  const [head, ...rest] = pattern;
  if (typeof head === "string" && rest.length === 1 && rest[0] === MANY) {
    return sql`d.term_id in (select rowid from search_terms where search_terms match ${`${ftsTerm(mark + head)} *`})`;
  }
  const glob = pattern
    .map((p) => (p === MANY ? "*" : p === ONE ? "?" : p.replace(/[*?[]/g, (c) => `[${c}]`)))
    .join("");
  return sql`d.term_id in (select rowid from search_terms where search_terms match (
    select coalesce(group_concat('"' || term || '"', ' OR '), '"none__"') from search_terms_vocab
    where term glob ${mark + glob} and term <> ${mark}))`;
}

/** Documents with a token of `field` matching a regular expression source (matched on the token alone). */
export function termRegex(dialect: SqlDialect, field: string, source: string): Condition {
  const mark = markOf(field);
  const from = mark.length + 1;
  if (dialect === "postgres") {
    return sql`exists (select 1 from unnest(d.terms) t
      where t like ${`${mark.replace(/_/g, "\\_")}%`} escape '\\' and t <> ${mark} and substr(t, ${from}) ~ ${source})`;
  }
  return sql`d.term_id in (select rowid from search_terms where search_terms match (
    select coalesce(group_concat('"' || term || '"', ' OR '), '"none__"') from search_terms_vocab
    where term glob ${`${mark}*`} and term <> ${mark} and d1_regexp(substr(term, ${from}), ${source}) = 1))`;
}

/** Documents with a token of `field` in a range (bounds lower-cased by the caller; byte-wise order). */
export function termRange(
  dialect: SqlDialect,
  field: string,
  low: { value: string; inclusive: boolean } | undefined,
  high: { value: string; inclusive: boolean } | undefined,
): Condition {
  const mark = markOf(field);
  const from = low ? mark + low.value : mark;
  const fromOp = sql.raw(low?.inclusive ? ">=" : ">");
  // Past every term of the field: the mark's last "_" (0x5f) raised to "`" (0x60).
  const to = high ? mark + high.value : `${mark.slice(0, -1)}\``;
  const toOp = sql.raw(high?.inclusive ? "<=" : "<");
  if (dialect === "postgres") {
    return sql`exists (select 1 from unnest(d.terms) t
      where t collate "C" ${fromOp} ${from} and t collate "C" ${toOp} ${to} and t <> ${mark})`;
  }
  return sql`d.term_id in (select rowid from search_terms where search_terms match (
    select coalesce(group_concat('"' || term || '"', ' OR '), '"none__"') from search_terms_vocab
    where term ${fromOp} ${from} and term ${toOp} ${to} and term <> ${mark}))`;
}
