/**
 * fl: the fields to return, separated by commas or spaces; `*` (the default) is every stored field; `score` is
 * ignored; `alias:field` renames (MetacatUI asks for `read:read_count_i`). Fields a document lacks are omitted.
 */
import type { StoredDoc } from "./index-rows.ts";

export function selectFields(fl: string | undefined): (doc: StoredDoc) => StoredDoc {
  const names = (fl ?? "*")
    .split(/[,\s]+/)
    .map((n) => n.trim())
    .filter((n) => n !== "" && n !== "score");
  if (names.length === 0 || names.includes("*")) return (doc) => doc;
  const picks = names.map((n) => {
    const at = n.indexOf(":");
    return at > 0 ? { as: n.slice(0, at), field: n.slice(at + 1) } : { as: n, field: n };
  });
  return (doc) => {
    const out: StoredDoc = {};
    for (const { as, field } of picks) {
      const value = doc[field];
      if (value !== undefined) out[as] = value;
    }
    return out;
  };
}
