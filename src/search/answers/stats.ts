/** stats=true&stats.field=F: min, max, count, missing, sum, mean and stddev over the matched documents. */

import type { Condition } from "../query/query-sql.ts";
import type { KnownField } from "../query/request.ts";
import { formatSolrDate } from "../schema/dates.ts";
import { isNumeric } from "../schema/fields.ts";
import type { SearchIndexHandle } from "./search.ts";

export type FieldStats = Record<string, string | number | null>;
export interface Stats {
  stats_fields: Record<string, FieldStats | null>;
}

export async function statsFor(
  index: SearchIndexHandle,
  fields: readonly KnownField[],
  where: Condition,
  numFound: number,
): Promise<Stats> {
  const out: Stats = { stats_fields: {} };
  for (const { field, spec } of fields) {
    const numeric = isNumeric(spec.type);
    const row = await index.db.search.fieldStatsRow(where, field, numeric);
    const count = Number(row?.c ?? 0);
    const missing = numFound - Number(row?.docs ?? 0);
    if (!row || count === 0) {
      out.stats_fields[field] = numeric
        ? { min: null, max: null, count: 0, missing, sum: 0, sumOfSquares: 0, mean: null, stddev: 0 }
        : { min: null, max: null, count: 0, missing };
      continue;
    }
    if (!numeric) {
      out.stats_fields[field] = { min: String(row.mn), max: String(row.mx), count, missing };
      continue;
    }
    const sum = Number(row.s ?? 0);
    const sumOfSquares = Number(row.ss ?? 0);
    const mean = sum / count;
    const stddev = count > 1 ? Math.sqrt(Math.max(0, (sumOfSquares - (sum * sum) / count) / (count - 1))) : 0;
    const show = (n: number) => (spec.type === "date" ? formatSolrDate(n) : n);
    out.stats_fields[field] = {
      min: show(Number(row.mn)),
      max: show(Number(row.mx)),
      count,
      missing,
      sum,
      sumOfSquares,
      mean: show(mean),
      stddev,
    };
  }
  return out;
}
