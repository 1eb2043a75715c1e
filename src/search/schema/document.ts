/**
 * A search document: field name -> values, typed as the field is (strings, numbers, booleans; dates as
 * milliseconds until they are written out). Built by the extractors and the system-metadata mapping.
 */
import { COPY_FIELDS, fieldSpec } from "./fields.ts";

export type FieldValue = string | number | boolean;
export type SearchDocument = Map<string, FieldValue[]>;

export class DocumentBuilder {
  readonly fields: SearchDocument = new Map();

  /** Add values to a field; blank strings are dropped and repeated values kept once. */
  add(name: string, ...values: (FieldValue | undefined | null)[]): this {
    const spec = fieldSpec(name);
    if (!spec) throw new Error(`The search schema has no field "${name}".`);
    for (const raw of values) {
      if (raw === undefined || raw === null) continue;
      const value = typeof raw === "string" ? raw.replace(/\s+/g, " ").trim() : raw;
      if (value === "" || (typeof value === "number" && !Number.isFinite(value))) continue;
      const list = this.fields.get(name) ?? [];
      if (!spec.multiValued && list.length > 0) continue;
      if (!list.includes(value)) list.push(value);
      this.fields.set(name, list);
    }
    return this;
  }

  /** Add the first non-empty value only (single-valued fields that several paths may fill). */
  first(name: string, values: (FieldValue | undefined)[]): this {
    return this.add(
      name,
      values.find((v) => v !== undefined && v !== ""),
    );
  }

  /** Merge another document's fields into this one. */
  merge(other: SearchDocument): this {
    for (const [name, values] of other) this.add(name, ...values);
    return this;
  }
}

/**
 * Apply the schema's copy fields (title -> titlestr, keywords -> keywordsText, ...). The fields of `doc` come
 * from builders (extraction, system metadata, stored package fields), so their values are already normalized
 * and distinct: they are copied as they are, and only the copied values go through `add`.
 */
export function withCopyFields(doc: SearchDocument): SearchDocument {
  const out = new DocumentBuilder();
  for (const [name, values] of doc) if (values.length > 0) out.fields.set(name, [...values]);
  for (const [source, target] of COPY_FIELDS) {
    const values = doc.get(source);
    if (values) out.add(target, ...values);
  }
  return out.fields;
}
