/**
 * Slashes in query text, read as Solr's query grammar reads them before the `lucene` package parses the rest.
 * Solr's term characters include "/" (a term may hold one after its first character: `formatId:*dataone.org/
 * portals*`, `NOW/DAY`), while a term starting with "/" is a regular expression up to the next unescaped "/"
 * (`REGEXPTERM: "/" (~["/"] | "\\/")* "/"`). Slashes inside terms and ranges are escaped here; each regular
 * expression is replaced by a placeholder term and kept aside, its body exactly as written.
 */
import { InvalidRequest } from "../../errors/exceptions.ts";

export interface PreparedQuery {
  text: string;
  /** Placeholder term -> the regular expression's body. */
  regexes: Map<string, string>;
}

/** Characters that end a term (or stand between terms): a "/" after one of them starts a regular expression. */
const TERM_END = new Set([" ", "\t", "\n", "\r", "\f", "\u3000", "(", ")", ":", "^", "~"]);
/** Operators where a term starts, term characters inside one (Solr's _TERM_CHAR). */
const PREFIX_OPERATORS = new Set(["+", "-", "!"]);
const PLACEHOLDER = "\uE000";

export function isRegexPlaceholder(term: string): boolean {
  return term.startsWith(PLACEHOLDER) && term.endsWith(PLACEHOLDER);
}

export function prepareQuery(query: string): PreparedQuery {
  const regexes = new Map<string, string>();
  let out = "";
  let inRange = false;
  let inTerm = false;
  for (let i = 0; i < query.length; i++) {
    const c = query[i] as string;
    if (c === "\\" && i + 1 < query.length) {
      out += c + query[++i];
      inTerm = true;
    } else if (c === '"') {
      const end = closingQuote(query, i);
      out += query.slice(i, end + 1);
      i = end;
      inTerm = false;
    } else if (c === "[" || c === "{" || c === "]" || c === "}") {
      inRange = c === "[" || c === "{";
      out += c;
      inTerm = false;
    } else if (c === "/" && (inRange || inTerm)) {
      out += "\\/";
    } else if (c === "/") {
      const end = closingSlash(query, i);
      const key = `${PLACEHOLDER}${regexes.size}${PLACEHOLDER}`;
      regexes.set(key, query.slice(i + 1, end));
      out += key;
      i = end;
    } else {
      out += c;
      if (TERM_END.has(c)) inTerm = false;
      else if (!PREFIX_OPERATORS.has(c)) inTerm = true;
    }
  }
  return { text: out, regexes };
}

function closingQuote(query: string, from: number): number {
  for (let i = from + 1; i < query.length; i++) {
    if (query[i] === "\\") i++;
    else if (query[i] === '"') return i;
  }
  return query.length - 1;
}

function closingSlash(query: string, from: number): number {
  for (let i = from + 1; i < query.length; i++) {
    if (query[i] === "\\" && query[i + 1] === "/") i++;
    else if (query[i] === "/") return i;
  }
  throw new InvalidRequest(
    `The query "${query}" has a regular expression (a term starting with "/") with no closing "/"; a literal slash at the start of a term is written \\/.`,
  );
}
