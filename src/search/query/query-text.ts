/** The text of query terms: wildcards, escapes and +/- prefixes (slashes: query-slashes.ts). */
import { MANY, ONE, type Pattern } from "../schema/terms.ts";

/** Wildcard pieces of an unquoted term, or undefined when it has no unescaped `*` or `?`. */
export function wildcard(raw: string): Pattern | undefined {
  const out: Pattern = [];
  let literal = "";
  let wild = false;
  for (let i = 0; i < raw.length; i++) {
    const c = raw[i] as string;
    if (c === "\\" && i + 1 < raw.length) {
      literal += raw[++i];
    } else if (c === "*" || c === "?") {
      if (literal) out.push(literal);
      literal = "";
      out.push(c === "*" ? MANY : ONE);
      wild = true;
    } else literal += c;
  }
  if (literal) out.push(literal);
  return wild ? out : undefined;
}

/** Backslash escapes removed ("\:" is ":"). */
export function unescapeTerm(raw: string): string {
  return raw.replace(/\\(.)/gs, "$1");
}

export function prefixOf(field: string): "+" | "-" | null {
  return field.startsWith("-") ? "-" : field.startsWith("+") ? "+" : null;
}
