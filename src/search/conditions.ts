/**
 * The SQL pieces a translated query is made of, over the search tables (search_docs as `d`, search_values as
 * `v`): values, numbers and wildcards of fields, the columns search_docs keeps for the commonest filters, and
 * and / or / not (each noted with its shape, condition-shapes.ts, for the engine's memory).
 */
import { type RawBuilder, sql } from "kysely";
import { shaped } from "./condition-shapes.ts";
import { MANY, ONE, type Pattern } from "./terms.ts";

export type Condition = RawBuilder<unknown>;
export type SqlDialect = "sqlite" | "postgres";

export const TRUE: Condition = sql`1 = 1`;
export const FALSE: Condition = sql`1 = 0`;

/** A column matching a wildcard pattern: GLOB on SQLite, LIKE on PostgreSQL (both case-sensitive). */
export function columnLike(dialect: SqlDialect, column: RawBuilder<unknown>, pattern: Pattern): Condition {
  if (dialect === "sqlite") {
    const glob = pattern
      .map((p) => (p === MANY ? "*" : p === ONE ? "?" : p.replace(/[*?[]/g, (c) => `[${c}]`)))
      .join("");
    return sql`${column} glob ${glob}`;
  }
  const like = pattern
    .map((p) => (p === MANY ? "%" : p === ONE ? "_" : p.replace(/[\\%_]/g, (c) => `\\${c}`)))
    .join("");
  return sql`${column} like ${like} escape '\\'`;
}

/**
 * A column matching a regular expression source (lucene-regexp.ts): PostgreSQL's `~`; on SQLite the function
 * d1_regexp the node registers on its connection (src/db/open.ts), as SQLite has no REGEXP of its own.
 */
export function columnRegex(dialect: SqlDialect, column: RawBuilder<unknown>, source: string): Condition {
  return dialect === "postgres" ? sql`${column} ~ ${source}` : sql`d1_regexp(${column}, ${source}) = 1`;
}

/** Clauses on the columns search_docs keeps for the commonest filters. */
export function columnMatch(
  dialect: SqlDialect,
  field: string,
  value: string,
  pattern: Pattern | undefined,
): Condition | undefined {
  if (field === "formatId")
    return pattern ? columnLike(dialect, sql`d.format_id`, pattern) : sql`d.format_id = ${value}`;
  if (pattern) return undefined;
  if (field === "formatType") return sql`d.format_type = ${value}`;
  if (field === "id") return sql`d.pid = ${value}`;
  if (field === "archived") return sql`d.archived = ${value.toLowerCase() === "true" ? 1 : 0}`;
  if (field === "isPublic") return sql`d.is_public = ${value.toLowerCase() === "true" ? 1 : 0}`;
  return undefined;
}

export function exists(dialect: SqlDialect, field: string): Condition {
  if (field === "obsoletedBy") return sql`d.obsoleted = 1`;
  if (field === "id" || field === "archived" || field === "isPublic") return TRUE;
  if (field === "formatType") return sql`d.format_type is not null`;
  if (field === "formatId") return sql`d.format_id is not null`;
  if (field === "dateUploaded") return sql`d.date_uploaded is not null`;
  return member(dialect, sql`v.field = ${field}`);
}

export function hasValue(dialect: SqlDialect, field: string, value: string): Condition {
  return shaped(member(dialect, sql`v.field = ${field} and v.value = ${value}`), {
    kind: "value",
    field,
    value,
  });
}

export function hasNumber(dialect: SqlDialect, field: string, value: number): Condition {
  if (field === "dateUploaded") return sql`d.date_uploaded = ${value}`;
  return member(dialect, sql`v.field = ${field} and v.num = ${value}`);
}

/**
 * "The document has a row matching `filter`": an IN list on SQLite (which drives the search from the
 * (field, value) index), a correlated EXISTS on PostgreSQL (which plans it, and its negation, as semi/anti joins).
 */
export function member(dialect: SqlDialect, filter: RawBuilder<unknown>): Condition {
  return dialect === "postgres"
    ? sql`exists (select 1 from search_values v where v.pid = d.pid and ${filter})`
    : sql`d.pid in (select v.pid from search_values v where ${filter})`;
}

export function and(parts: Condition[]): Condition {
  const kept = parts.filter((p) => p !== TRUE);
  if (kept.length === 0) return TRUE;
  if (kept.length === 1) return kept[0] as Condition;
  return shaped(sql`(${sql.join(kept, sql` and `)})`, { kind: "and", parts: kept });
}

export function or(parts: Condition[]): Condition {
  if (parts.includes(TRUE)) return TRUE;
  if (parts.length === 0) return FALSE;
  if (parts.length === 1) return parts[0] as Condition;
  return shaped(sql`(${sql.join(parts, sql` or `)})`, { kind: "or", parts });
}

export function negate(part: Condition): Condition {
  if (part === TRUE) return FALSE;
  if (part === FALSE) return TRUE;
  return shaped(sql`not (${part})`, { kind: "not", part });
}
