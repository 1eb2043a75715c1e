/**
 * sort=field dir[,field dir...]: documents missing the field come last in either direction (same on both
 * databases); the identifier breaks ties so pages never overlap. `score` is accepted and ignored (the index does
 * not rank), so the default order is by identifier. A multi-valued field sorts by its least value. The SQL order:
 * src/search/store/order-by.ts.
 */
import { InvalidRequest } from "../../errors/exceptions.ts";
import { fieldSpec, isNumeric } from "../schema/fields.ts";

export interface SortKey {
  /** The index field (title sorts by titlestr), or "id": the identifier itself. */
  field: string;
  numeric: boolean;
  descending: boolean;
}

/** The sort parameter's keys, identifier ties left out; InvalidRequest for what Solr refuses. */
export function sortKeys(sort: string | undefined): SortKey[] {
  const keys: SortKey[] = [];
  for (const piece of (sort ?? "").split(",")) {
    const text = piece.trim();
    if (text === "") continue;
    const m = /^(\S+)\s+(asc|desc)$/i.exec(text);
    if (!m) throw new InvalidRequest(`Can't determine a Sort Order (asc or desc) in sort spec '${text}'.`);
    const name = m[1] as string;
    if (name === "score") continue;
    const spec = fieldSpec(name === "title" ? "titlestr" : name);
    if (!spec) throw new InvalidRequest(`sort param field can't be found: ${name}`);
    keys.push({
      field: name === "id" ? "id" : spec.name,
      numeric: isNumeric(spec.type),
      descending: (m[2] as string).toLowerCase() === "desc",
    });
  }
  return keys;
}
