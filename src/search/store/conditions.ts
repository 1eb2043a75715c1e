/**
 * The SQL pieces a translated query is made of, over the search tables (search_docs as `d`, search_values as
 * `v`): values, numbers and wildcards of fields, the columns search_docs keeps for the commonest filters, and
 * and / or / not (each noted with its shape, condition-shapes.ts, for the engine's memory).
 */
import { type RawBuilder, sql } from "kysely";
import { PUBLIC } from "../../auth/subjects.ts";
import { digestMatch } from "../../db/objects/digest-match.ts";
import type { HexDigest } from "../../types/content-hash.ts";
import { shaped } from "../query/condition-shapes.ts";
import { READER_FIELDS } from "../schema/sysmeta-fields.ts";
import { MANY, ONE, type Pattern } from "../schema/terms.ts";

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
 * d1_regexp the node registers on its connection (src/db/sqlite-handle.ts), as SQLite has no REGEXP of its own.
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

/**
 * The documents `part` does not match, also those it leaves unknown (a missing column): with `part`'s own
 * documents, every document exactly once.
 */
export function unmatched(part: Condition): Condition {
  return sql`(${part}) is not true`;
}

/** A bound of a range: the value and whether it is included. */
export interface Bound<T> {
  value: T;
  inclusive: boolean;
}

const lowOp = (bound: Bound<unknown>) => sql.raw(bound.inclusive ? ">=" : ">");
const highOp = (bound: Bound<unknown>) => sql.raw(bound.inclusive ? "<=" : "<");

/** A numeric (or date) field in a range; open ends undefined. */
export function numberRange(
  dialect: SqlDialect,
  field: string,
  low: Bound<number> | undefined,
  high: Bound<number> | undefined,
): Condition {
  const parts: Condition[] = [];
  if (field === "dateUploaded") {
    if (low) parts.push(sql`d.date_uploaded ${lowOp(low)} ${low.value}`);
    if (high) parts.push(sql`d.date_uploaded ${highOp(high)} ${high.value}`);
    if (parts.length === 0) parts.push(sql`d.date_uploaded is not null`);
    return and(parts);
  }
  if (low) parts.push(sql`v.num ${lowOp(low)} ${low.value}`);
  if (high) parts.push(sql`v.num ${highOp(high)} ${high.value}`);
  parts.push(sql`v.num is not null`);
  return member(dialect, sql`v.field = ${field} and ${and(parts)}`);
}

/**
 * `checksum:<hex>`: the documents of objects whose bytes have that digest in any algorithm the node knows them
 * by (src/db/objects/digest-match.ts): the system metadata's checksum in any case, and the digests the node
 * computed (SHA-256 always where it holds the bytes). Answered by SQL, not by the memory's field values.
 */
export function hasDigest(hex: HexDigest): Condition {
  return sql`d.pid in (select pid from objects where ${digestMatch(hex)})`;
}

/** A string field in a range (byte-wise order); open ends undefined. */
export function valueRange(
  dialect: SqlDialect,
  field: string,
  low: Bound<string> | undefined,
  high: Bound<string> | undefined,
): Condition {
  const parts: Condition[] = [];
  if (low) parts.push(sql`v.value ${lowOp(low)} ${low.value}`);
  if (high) parts.push(sql`v.value ${highOp(high)} ${high.value}`);
  return member(dialect, sql`v.field = ${field} and ${and(parts)}`);
}

/** A string field with a value matching a wildcard pattern. */
export function valueLike(dialect: SqlDialect, field: string, pattern: Pattern): Condition {
  return member(dialect, sql`v.field = ${field} and ${columnLike(dialect, sql`v.value`, pattern)}`);
}

/** A string field with a value matching a regular expression source (lucene-regexp.ts). */
export function valueRegex(dialect: SqlDialect, field: string, source: string): Condition {
  if (field === "formatId") return columnRegex(dialect, sql`d.format_id`, source);
  return member(dialect, sql`v.field = ${field} and ${columnRegex(dialect, sql`v.value`, source)}`);
}

/** Documents not archived (a search leaves them out unless it asks about them). */
export function notArchived(): Condition {
  return sql`d.archived = 0`;
}

/**
 * Documents one of `subjects` may read (the rule: src/auth/readers.ts): naming one of them in a reader field, or,
 * when they include public, public (is_public: public holds a permission, kept as a column to skip the lookup).
 */
export function accessCondition(dialect: SqlDialect, subjects: readonly string[]): Condition {
  const named = subjects.filter((subject) => subject !== PUBLIC);
  const parts: Condition[] = [];
  if (named.length < subjects.length) parts.push(sql`d.is_public = 1`);
  if (named.length > 0) {
    const held = sql`v.field in (${sql.join(READER_FIELDS)}) and v.value in (${sql.join(named)})`;
    parts.push(
      dialect === "postgres"
        ? sql`exists (select 1 from search_values v where v.pid = d.pid and ${held})`
        : sql`d.pid in (select v.pid from search_values v where ${held})`,
    );
  }
  if (parts.length === 0) return sql`1 = 0`;
  return parts.length === 1 ? (parts[0] as Condition) : sql`(${sql.join(parts, sql` or `)})`;
}
