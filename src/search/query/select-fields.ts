/**
 * fl: the fields to return, separated by commas or spaces; `*` (the default) is every stored field; `score` is
 * ignored; `alias:field` renames (MetacatUI asks for `read:read_count_i`). Fields a document lacks are omitted.
 */
import type { StoredDoc } from "../schema/index-rows.ts";

/** One field of fl: shown under `as`, read from `field`. */
export interface FieldPick {
  as: string;
  field: string;
}

/** The fields fl names, or undefined for every stored field. */
export function fieldList(fl: string | undefined): FieldPick[] | undefined {
  const names = (fl ?? "*")
    .split(/[,\s]+/)
    .map((n) => n.trim())
    .filter((n) => n !== "" && n !== "score");
  if (names.length === 0 || names.includes("*")) return undefined;
  return names.map((n) => {
    const at = n.indexOf(":");
    return at > 0 ? { as: n.slice(0, at), field: n.slice(at + 1) } : { as: n, field: n };
  });
}

export function selectFields(picks: readonly FieldPick[] | undefined): (doc: StoredDoc) => StoredDoc {
  if (picks === undefined) return (doc) => doc;
  return (doc) => {
    const out: StoredDoc = {};
    for (const { as, field } of picks) {
      const value = doc[field];
      if (value !== undefined) out[as] = value;
    }
    return out;
  };
}
