/**
 * The SQL order of sort keys (src/search/query/sort.ts): documents missing the field last in either direction, a
 * multi-valued field by its least value, the identifier breaking ties.
 */
import { type RawBuilder, sql } from "kysely";
import type { SortKey } from "../query/sort.ts";

export function orderBy(keys: readonly SortKey[]): RawBuilder<unknown> {
  const parts: RawBuilder<unknown>[] = [];
  for (const key of keys) {
    const direction = sql.raw(key.descending ? "desc" : "asc");
    let expr: RawBuilder<unknown>;
    if (key.field === "id") expr = sql`d.pid`;
    else if (key.field === "dateUploaded") expr = sql`d.date_uploaded`;
    else if (key.numeric) {
      expr = sql`(select min(v.num) from search_values v where v.pid = d.pid and v.field = ${key.field})`;
    } else {
      expr = sql`(select min(v.value) from search_values v where v.pid = d.pid and v.field = ${key.field})`;
    }
    parts.push(sql`case when ${expr} is null then 1 else 0 end`, sql`${expr} ${direction}`);
  }
  parts.push(sql`d.pid asc`);
  return sql.join(parts, sql`, `);
}
