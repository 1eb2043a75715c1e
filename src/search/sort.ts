/**
 * sort=field dir[,field dir...]: documents missing the field come last in either direction (same on both
 * databases); the identifier breaks ties so pages never overlap. `score` is accepted and ignored (the index does
 * not rank), so the default order is by identifier.
 */
import { type RawBuilder, sql } from "kysely";
import { InvalidRequest } from "../errors/exceptions.ts";
import { fieldSpec, isNumeric } from "./fields.ts";

export function orderBy(sort: string | undefined): RawBuilder<unknown> {
  const parts: RawBuilder<unknown>[] = [];
  for (const piece of (sort ?? "").split(",")) {
    const text = piece.trim();
    if (text === "") continue;
    const m = /^(\S+)\s+(asc|desc)$/i.exec(text);
    if (!m) throw new InvalidRequest(`Can't determine a Sort Order (asc or desc) in sort spec '${text}'.`);
    const name = m[1] as string;
    const direction = sql.raw((m[2] as string).toLowerCase());
    if (name === "score") continue;
    const spec = fieldSpec(name === "title" ? "titlestr" : name);
    if (!spec) throw new InvalidRequest(`sort param field can't be found: ${name}`);
    let expr: RawBuilder<unknown>;
    if (name === "id") expr = sql`d.pid`;
    else if (name === "dateUploaded") expr = sql`d.date_uploaded`;
    else if (isNumeric(spec.type)) {
      expr = sql`(select min(v.num) from search_values v where v.pid = d.pid and v.field = ${spec.name})`;
    } else {
      expr = sql`(select min(v.value) from search_values v where v.pid = d.pid and v.field = ${spec.name})`;
    }
    parts.push(sql`case when ${expr} is null then 1 else 0 end`, sql`${expr} ${direction}`);
  }
  parts.push(sql`d.pid asc`);
  return sql.join(parts, sql`, `);
}
