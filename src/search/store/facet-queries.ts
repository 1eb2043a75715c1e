/** Counting over the documents a condition matches: field values (facets), terms, numbers, stats. */
import { type RawBuilder, sql } from "kysely";
import type { Condition } from "./conditions.ts";
import { onDocs } from "./docs-scan.ts";
import type { SearchDb } from "./index-store.ts";

export interface ValueCountRow {
  field: string;
  value: string;
  n: number | string;
  num: number | null;
}

/**
 * Counts of every value of these fields over the matching documents, read document by document: each matching
 * document's values of the fields from the (pid, field) index, so the work follows the documents matched, not
 * the rows of the fields. On PostgreSQL a lateral subquery (kept apart by `offset 0`) holds that plan: joined
 * freely, the planner probes the documents once per value row. SQLite reads the documents' list once and seeks each one's values. One grouped query for
 * the numeric fields (their numbers read too), one for the others.
 */
export async function valueCountRows(
  db: SearchDb,
  where: Condition,
  numeric: string[],
  other: string[],
): Promise<ValueCountRow[]> {
  return groupedCounts(numeric, other, (list, num) =>
    db.dialect === "postgres"
      ? sql<ValueCountRow>`select v.field as field, v.value as value, count(*) as n, ${num} as num
          from search_docs d cross join lateral (select v.field, v.value, v.num from search_values v
            where v.pid = d.pid and v.field in (${sql.join(list)}) offset 0) v
          where ${where} group by v.field, v.value`.execute(db.kysely)
      : onDocs(
          db,
          where,
          (docs) =>
            sql<ValueCountRow>`select v.field as field, v.value as value, count(*) as n, ${num} as num
          from search_values v where v.field in (${sql.join(list)})
            and v.pid in (select d.pid from ${docs} where ${where})
          group by v.field, v.value`,
        ),
  );
}

/**
 * Counts of every value of these fields over every document: the (field, value, pid) key read in order, no
 * join and no sort (the facet counts of a query matching most documents are these less the others' counts).
 */
export async function valueTotalRows(
  db: SearchDb,
  numeric: string[],
  other: string[],
): Promise<ValueCountRow[]> {
  return groupedCounts(numeric, other, (list, num) =>
    sql<ValueCountRow>`select v.field as field, v.value as value, count(*) as n, ${num} as num
      from search_values v where v.field in (${sql.join(list)})
      group by v.field, v.value`.execute(db.kysely),
  );
}

/** The rows of `count` run for the numeric fields (their least number read) and for the others. */
async function groupedCounts(
  numeric: string[],
  other: string[],
  count: (list: string[], num: RawBuilder<unknown>) => Promise<{ rows: ValueCountRow[] }>,
): Promise<ValueCountRow[]> {
  const rows: ValueCountRow[] = [];
  for (const [list, num] of [
    [numeric, sql`min(v.num)`],
    [other, sql`null`],
  ] as const) {
    if (list.length === 0) continue;
    const result = await count(list, num);
    // One by one: a field with a value per document gives more rows than a spread's arguments may be.
    for (const row of result.rows) rows.push(row);
  }
  return rows;
}

/**
 * Each term of the matching documents (src/search/schema/terms.ts), on PostgreSQL only those starting with `mark`
 * and longer; the caller keeps those of its field.
 */
export async function forEachTerm(
  db: SearchDb,
  where: Condition,
  mark: string,
  visit: (term: string) => void,
): Promise<void> {
  if (db.dialect === "postgres") {
    const rows = await sql<{ t: string }>`select t from search_docs d, unnest(d.terms) as t
      where ${where} and t like ${`${mark.replace(/_/g, "\\_")}_%`} escape '\\'`.execute(db.kysely);
    for (const { t } of rows.rows) visit(t);
  } else {
    const rows = await onDocs(
      db,
      where,
      (docs) =>
        sql<{ terms: string }>`select terms from search_terms
      where rowid in (select d.term_id from ${docs} where ${where})`,
    );
    for (const { terms } of rows.rows) for (const term of terms.split(" ")) visit(term);
  }
}

/** The numbers of `field` in [start, end) over the matching documents (facet.range). */
export async function numbersOf(
  db: SearchDb,
  where: Condition,
  field: string,
  start: number,
  end: number,
): Promise<{ num: number }[]> {
  const rows = await onDocs(
    db,
    where,
    (docs) =>
      sql<{ num: number }>`select v.num as num from search_values v
    where v.field = ${field} and v.num >= ${start} and v.num < ${end}
      and v.pid in (select d.pid from ${docs} where ${where})`,
  );
  return rows.rows;
}

export interface FieldStatsRow {
  mn: number | string | null;
  mx: number | string | null;
  c: number | string;
  docs: number | string;
  s: number | null;
  ss: number | null;
}

/** Least, greatest, count, documents, sum and sum of squares of `field` over the matching documents. */
export async function fieldStatsRow(
  db: SearchDb,
  where: Condition,
  field: string,
  numeric: boolean,
): Promise<FieldStatsRow | undefined> {
  const r = await onDocs(
    db,
    where,
    (
      docs,
    ) => sql<FieldStatsRow>`select ${numeric ? sql`min(v.num)` : sql`min(v.value)`} as mn, ${numeric ? sql`max(v.num)` : sql`max(v.value)`} as mx,
        count(*) as c, count(distinct v.pid) as docs, sum(v.num) as s, sum(v.num * v.num) as ss
      from search_values v where v.field = ${field}
        and v.pid in (select d.pid from ${docs} where ${where})`,
  );
  return r.rows[0];
}
