/**
 * Lucene/Solr query syntax -> an SQL condition over the search tables (search_docs as `d`). Parsing is done by
 * the `lucene` package; this module only maps its tree. Clause semantics follow Solr's standard parser:
 * `+x` required, `-x` prohibited, other clauses of an OR chain optional (at least one must match when nothing
 * is required), `AND` / `NOT` as written, clauses without an operator joined by the default operator (AND); a purely negative group matches everything else.
 * Text fields match tokens (a phrase needs all its words, not their order); string fields match whole
 * values, case-sensitively; `*` and `?` are wildcards; numbers and dates compare numerically, with date math;
 * `/.../` is a regular expression matched against whole values (string fields) or tokens (text fields).
 * `checksum:<hex>` (either case) matches any digest the node knows the object's bytes by (store/conditions.ts
 * hasDigest), as clients holding a file look it up ("q=checksum:<hex>", R's contentid).
 */

import lucene, { type AST, type Node, type RangeNode, type TermNode } from "lucene";
import { InvalidRequest } from "../../errors/exceptions.ts";
import { hexDigest } from "../../types/content-hash.ts";
import { readQueryDate } from "../schema/dates.ts";
import { type FieldSpec, fieldSpec, isNumeric } from "../schema/fields.ts";
import { MANY, markOf, type Pattern, termOf } from "../schema/terms.ts";
import {
  and,
  type Condition,
  columnMatch,
  exists,
  FALSE,
  hasDigest,
  hasNumber,
  hasValue,
  negate,
  numberRange,
  or,
  type SqlDialect,
  TRUE,
  valueLike,
  valueRange,
  valueRegex,
} from "../store/conditions.ts";
import { hasTerms, termLike, termRange, termRegex } from "../store/term-conditions.ts";
import { luceneRegexpSource } from "./lucene-regexp.ts";
import { isRegexPlaceholder, prepareQuery } from "./query-slashes.ts";
import { prefixOf, unescapeTerm, wildcard } from "./query-text.ts";

export {
  and,
  type Condition,
  FALSE,
  negate,
  or,
  type SqlDialect,
  TRUE,
  unmatched,
} from "../store/conditions.ts";

import { tokenize } from "../schema/tokens.ts";

export interface TranslateOptions {
  dialect: SqlDialect;
  /** Field of terms without one (Solr's df). */
  defaultField?: string;
  /** Operator between clauses without one (Solr's q.op; AND as DataONE's indexes say, search.ts). */
  defaultOperator?: "OR" | "AND";
  now?: number;
}

/** The condition a query string stands for; malformed queries and unknown fields are InvalidRequest. */
export function translateQuery(query: string, options: TranslateOptions): Condition {
  const text = query.trim();
  if (text === "" || text === "*:*" || text === "*") return TRUE;
  const prepared = prepareQuery(text);
  let tree: AST;
  try {
    tree = lucene.parse(prepared.text);
  } catch (error) {
    throw new InvalidRequest(`The query "${query}" is not valid query syntax: ${(error as Error).message}`);
  }
  const t = new Translator(options, prepared.regexes);
  return t.node(tree, options.defaultField ?? "text").sql;
}

/** The fields a query names (to tell whether it asks about `archived`). */
export function fieldsOf(query: string): Set<string> {
  const out = new Set<string>();
  const walk = (node: Node | undefined) => {
    if (!node) return;
    if ("term" in node || "term_min" in node) out.add(node.field.replace(/^[+-]/, ""));
    else {
      if (node.field) out.add(node.field);
      walk(node.left);
      walk(node.right);
    }
  };
  try {
    walk(lucene.parse(prepareQuery(query).text));
  } catch {
    // Reported by translateQuery.
  }
  return out;
}

interface Clause {
  sql: Condition;
  modifier: "+" | "-" | null;
}

class Translator {
  constructor(
    private readonly options: TranslateOptions,
    private readonly regexes: ReadonlyMap<string, string>,
  ) {}

  node(node: Node, field: string): Clause {
    if ("term" in node) return this.term(node, field);
    if ("term_min" in node) return this.range(node, field);
    const inner = node.field && node.field !== "<implicit>" ? node.field : field;
    const groupField = inner.replace(/^[+-]/, "");
    const groupModifier = prefixOf(inner);
    let clause: Clause;
    if (!node.right || !node.operator) {
      const left = this.node(node.left, groupField);
      clause = { sql: this.alone(left), modifier: null };
      if (node.start === "NOT") clause = { sql: negate(clause.sql), modifier: null };
      if (!node.start && left.modifier && !groupModifier) clause.modifier = left.modifier;
    } else {
      clause = { sql: this.chain(node, groupField), modifier: null };
    }
    if (groupModifier) clause.modifier = groupModifier;
    return clause;
  }

  /** A binary node and the operator chain nested to its right (a b AND c parses as a, (b, (c))). */
  private chain(node: AST, field: string): Condition {
    const items: { op: string; clause: Clause }[] = [];
    let op = "<start>";
    let current: Node = node;
    for (let first = true; ; first = false) {
      const continues =
        !("term" in current) &&
        !("term_min" in current) &&
        current.operator !== undefined &&
        current.right !== undefined &&
        (first ||
          (!current.parenthesized && !current.start && (current.field ?? "<implicit>") === "<implicit>"));
      if (!continues) {
        items.push({ op, clause: this.node(current, field) });
        break;
      }
      const binary = current as AST;
      let left = this.node(binary.left, field);
      if (first && binary.start === "NOT") left = { sql: negate(this.alone(left)), modifier: null };
      items.push({ op, clause: left });
      op = binary.operator as string;
      current = binary.right as Node;
    }
    return this.combine(items);
  }

  /** Solr clause logic: AND binds its neighbours; OR / implicit clauses are optional unless marked. */
  private combine(items: { op: string; clause: Clause }[]): Condition {
    const defaultOp = this.options.defaultOperator ?? "AND";
    // Groups of clauses joined by AND; the groups are joined by OR (optional) semantics.
    const groups: Clause[][] = [];
    for (const { op, clause } of items) {
      const kind = op === "<implicit>" ? defaultOp : op;
      if (op === "<start>" || kind === "OR" || kind === "OR NOT") {
        groups.push([kind === "OR NOT" ? { sql: negate(this.alone(clause)), modifier: null } : clause]);
      } else {
        const last = groups[groups.length - 1] as Clause[];
        const required =
          kind === "AND NOT" || kind === "NOT" ? { sql: clause.sql, modifier: "-" as const } : clause;
        if (last.length === 1 && last[0]?.modifier === null) (last[0] as Clause).modifier = "+";
        last.push(required.modifier === null ? { ...required, modifier: "+" } : required);
      }
    }
    const clauses = groups.flatMap((g) =>
      g.length === 1 ? g : [{ sql: this.allOf(g), modifier: "+" as const }],
    );
    return this.allOf(clauses);
  }

  /** Required, prohibited and optional clauses together. */
  private allOf(clauses: Clause[]): Condition {
    const required = clauses.filter((c) => c.modifier === "+").map((c) => c.sql);
    const prohibited = clauses.filter((c) => c.modifier === "-").map((c) => negate(c.sql));
    const optional = clauses.filter((c) => c.modifier === null).map((c) => c.sql);
    const parts = [...required, ...prohibited];
    if (required.length === 0 && optional.length > 0) parts.unshift(or(optional));
    return and(parts);
  }

  private alone(clause: Clause): Condition {
    return clause.modifier === "-" ? negate(clause.sql) : clause.sql;
  }

  private term(node: TermNode, inherited: string): Clause {
    const rawField = node.field === "<implicit>" ? inherited : node.field;
    const modifier = node.prefix ?? prefixOf(rawField);
    const name = rawField.replace(/^[+-]/, "");
    if (name === "*" && node.term === "*") return { sql: TRUE, modifier };
    const spec = this.spec(name);
    const regex = isRegexPlaceholder(node.term) ? this.regexes.get(node.term) : undefined;
    if (regex !== undefined) return { sql: this.regex(spec, regex), modifier };
    return { sql: this.match(spec, node.term, node.quoted), modifier };
  }

  /** `field:/re/`: Lucene matches the expression against whole indexed terms, lower-cased ones for text. */
  private regex(spec: FieldSpec, body: string): Condition {
    const { dialect } = this.options;
    if (spec.type === "text") return termRegex(dialect, spec.name, luceneRegexpSource(body.toLowerCase()));
    if (spec.type !== "string")
      throw new InvalidRequest(
        `A regular expression matches string and text fields; ${spec.name} is a ${spec.type} field.`,
      );
    return valueRegex(dialect, spec.name, luceneRegexpSource(body));
  }

  private spec(name: string): FieldSpec {
    const spec = fieldSpec(name);
    if (!spec) throw new InvalidRequest(`undefined field ${name}`);
    return spec;
  }

  private match(spec: FieldSpec, raw: string, quoted: boolean): Condition {
    const pattern = quoted ? undefined : wildcard(raw);
    if (pattern && pattern.length === 1 && pattern[0] === MANY) {
      if (spec.type === "text") return hasTerms(this.options.dialect, [markOf(spec.name)]);
      return exists(this.options.dialect, spec.name);
    }
    if (spec.name === "checksum" && !pattern) {
      const hex = hexDigest(unescapeTerm(raw));
      if (hex) return hasDigest(hex);
    }
    const column = columnMatch(this.options.dialect, spec.name, unescapeTerm(raw), pattern);
    if (column) return column;
    if (spec.type === "text") {
      if (pattern)
        return termLike(
          this.options.dialect,
          spec.name,
          pattern.map((p) => (typeof p === "string" ? p.toLowerCase() : p)),
        );
      const tokens = tokenize(unescapeTerm(raw));
      if (tokens.length === 0) return FALSE;
      return hasTerms(
        this.options.dialect,
        [...new Set(tokens)].map((token) => termOf(spec.name, token)),
      );
    }
    if (pattern) return this.valueLike(spec.name, pattern);
    const value = unescapeTerm(raw);
    if (isNumeric(spec.type)) return hasNumber(this.options.dialect, spec.name, this.number(spec, value));
    if (spec.type === "boolean")
      return hasValue(this.options.dialect, spec.name, String(value.toLowerCase() === "true"));
    return hasValue(this.options.dialect, spec.name, value);
  }

  private range(node: RangeNode, inherited: string): Clause {
    const rawField = node.field === "<implicit>" ? inherited : node.field;
    const modifier = prefixOf(rawField);
    const spec = this.spec(rawField.replace(/^[+-]/, ""));
    const low = node.term_min === "*" ? undefined : unescapeTerm(node.term_min);
    const high = node.term_max === "*" ? undefined : unescapeTerm(node.term_max);
    const inclusiveLow = node.inclusive === "both" || node.inclusive === "left";
    const inclusiveHigh = node.inclusive === "both" || node.inclusive === "right";
    const { dialect } = this.options;
    if (isNumeric(spec.type)) {
      const from = low === undefined ? undefined : { value: this.number(spec, low), inclusive: inclusiveLow };
      const to =
        high === undefined ? undefined : { value: this.number(spec, high), inclusive: inclusiveHigh };
      return { sql: numberRange(dialect, spec.name, from, to), modifier };
    }
    if (spec.type === "text") {
      return {
        sql: termRange(
          dialect,
          spec.name,
          low === undefined ? undefined : { value: low.toLowerCase(), inclusive: inclusiveLow },
          high === undefined ? undefined : { value: high.toLowerCase(), inclusive: inclusiveHigh },
        ),
        modifier,
      };
    }
    const from = low === undefined ? undefined : { value: low, inclusive: inclusiveLow };
    const to = high === undefined ? undefined : { value: high, inclusive: inclusiveHigh };
    return { sql: valueRange(dialect, spec.name, from, to), modifier };
  }

  private number(spec: FieldSpec, text: string): number {
    const value = spec.type === "date" ? readQueryDate(text, this.options.now) : Number(text);
    if (value === undefined || !Number.isFinite(value) || text.trim() === "") {
      throw new InvalidRequest(
        spec.type === "date"
          ? `Invalid Date String:'${text}' (field ${spec.name})`
          : `Invalid Number: ${text} (field ${spec.name})`,
      );
    }
    return value;
  }

  private valueLike(field: string, pattern: Pattern): Condition {
    return valueLike(this.options.dialect, field, pattern);
  }
}
