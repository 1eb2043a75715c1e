/** Solr request parameters: every name may repeat (fq, facet.field, ...); order is kept for the echo. */
import { InvalidRequest } from "../../errors/exceptions.ts";

export class SolrParams {
  readonly entries: [string, string][] = [];

  static from(record: Record<string, string | string[] | undefined>): SolrParams {
    const params = new SolrParams();
    for (const [name, value] of Object.entries(record)) {
      for (const v of Array.isArray(value) ? value : value === undefined ? [] : [value]) params.add(name, v);
    }
    return params;
  }

  add(name: string, value: string): void {
    // U+0000 is in no indexed value, and PostgreSQL refuses it in text.
    if (value.includes("\u0000") || name.includes("\u0000"))
      throw new InvalidRequest(`Parameter ${name} contains a NUL character (%00), which no value can hold.`);
    this.entries.push([name, value]);
  }

  all(name: string): string[] {
    return this.entries.filter(([n]) => n === name).map(([, v]) => v);
  }

  get(name: string): string | undefined {
    return this.entries.find(([n]) => n === name)?.[1];
  }

  /** A per-field parameter: `f.<field>.<name>` first, then `<name>`. */
  forField(field: string, name: string): string | undefined {
    return this.get(`f.${field}.${name}`) ?? this.get(name);
  }

  int(name: string, fallback: number, min: number, max: number, field?: string): number {
    const text = field ? this.forField(field, name) : this.get(name);
    if (text === undefined || text.trim() === "") return fallback;
    if (!/^\s*[+-]?\d+\s*$/.test(text))
      throw new InvalidRequest(`Parameter ${name}="${text}" is not an integer.`);
    const value = Number(text);
    if (value < min || value > max) {
      throw new InvalidRequest(`Parameter ${name}=${value} is out of range (${min} to ${max}).`);
    }
    return value;
  }

  bool(name: string): boolean {
    const value = this.get(name)?.trim().toLowerCase();
    return value === "true" || value === "on" || value === "yes";
  }

  /** The echo Solr gives in responseHeader.params: one string, or an array for repeated names. */
  echo(): Record<string, string | string[]> {
    const out: Record<string, string | string[]> = {};
    for (const [name, value] of this.entries) {
      const previous = out[name];
      if (previous === undefined) out[name] = value;
      else out[name] = Array.isArray(previous) ? [...previous, value] : [previous, value];
    }
    return out;
  }
}
