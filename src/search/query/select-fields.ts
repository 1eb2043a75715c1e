/**
 * fl: the fields to return, separated by commas or spaces; `*` (the default) is every stored field; `score` is
 * ignored; `alias:field` renames (MetacatUI asks for `read:read_count_i`). Fields a document lacks are omitted.
 * `dataUrl` is stored (so `*` returns it) but made here, from the answer's links (schema/data-url.ts).
 */
import { type AnswerLinks, DATA_URL_FIELD, dataUrlOf } from "../schema/data-url.ts";
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

/** The document as the answer shows it: the fields `picks` names (all stored ones when undefined). */
export function selectFields(
  picks: readonly FieldPick[] | undefined,
  links?: AnswerLinks,
): (doc: StoredDoc) => StoredDoc {
  if (picks === undefined) {
    if (links === undefined) return (doc) => doc;
    return (doc) => {
      const dataUrl = dataUrlOf(doc, links);
      return dataUrl === undefined ? doc : { ...doc, [DATA_URL_FIELD]: dataUrl };
    };
  }
  return (doc) => {
    const out: StoredDoc = {};
    for (const { as, field } of picks) {
      const value = field === DATA_URL_FIELD ? dataUrlOf(doc, links) : doc[field];
      if (value !== undefined) out[as] = value;
    }
    return out;
  };
}
