/**
 * Lucene's regular expression syntax (org.apache.lucene.util.automaton.RegExp, as Solr's `field:/.../` queries
 * use it) -> one regular expression source that JavaScript (flags "su") and PostgreSQL (`~`, advanced regular
 * expressions) read alike, anchored to the whole value: a Lucene regexp always matches a whole term.
 *
 *   union  a|b          concatenation  ab        repeats  a? a* a+ a{n} a{n,} a{n,m}
 *   any char  .         any string  @            empty language  #
 *   classes  [a-z] [^a-z]     literal string  "..."     groups  ( ) (a)     escape  \c (c literally)
 *
 * Everything else is a literal character ("^" and "$" too: Lucene has no anchors). Complement (~),
 * intersection (&) and numeric intervals (<n-m>) have no equivalent in these engines and are refused.
 */
import { InvalidRequest } from "../../errors/exceptions.ts";

/** Characters escaped in the output (outside classes), so both engines read them literally. */
const SYNTAX = new Set([..."^$\\.*+?()[]{}|/"]);
/** Characters escaped inside a class. */
const CLASS_SYNTAX = new Set([..."\\]^-["]);

export function luceneRegexpSource(regexp: string): string {
  const parser = new Parser(regexp);
  const body = parser.union();
  if (!parser.done()) parser.fail(`unexpected "${parser.peek()}"`);
  return `^(?:${body})$`;
}

const literal = (c: string) => (SYNTAX.has(c) ? `\\${c}` : c);

class Parser {
  private at = 0;
  private readonly chars: string[];

  constructor(private readonly text: string) {
    this.chars = [...text];
  }

  done(): boolean {
    return this.at >= this.chars.length;
  }

  peek(): string | undefined {
    return this.chars[this.at];
  }

  fail(why: string): never {
    throw new InvalidRequest(`The regular expression /${this.text}/ is not valid: ${why}.`);
  }

  union(): string {
    const parts = [this.concatenation()];
    while (this.peek() === "|") {
      this.at++;
      parts.push(this.concatenation());
    }
    return parts.join("|");
  }

  private concatenation(): string {
    let out = "";
    while (!this.done() && this.peek() !== "|" && this.peek() !== ")") {
      if (this.peek() === "&") this.fail("intersection (&) is not supported");
      out += this.repeat();
    }
    return out;
  }

  private repeat(): string {
    let out = this.atom();
    for (;;) {
      const c = this.peek();
      if (c === "?" || c === "*" || c === "+") {
        this.at++;
        out = `(?:${out})${c}`;
      } else if (c === "{") {
        out = `(?:${out})${this.bounds()}`;
      } else return out;
    }
  }

  private bounds(): string {
    const close = this.chars.indexOf("}", this.at);
    const inside = close === -1 ? "" : this.chars.slice(this.at + 1, close).join("");
    const match = /^(\d+)(,(\d*))?$/.exec(inside);
    if (!match) this.fail('a repeat "{" needs {n}, {n,} or {n,m}');
    const [, low, comma, high] = match;
    if (high !== undefined && high !== "" && Number(high) < Number(low)) this.fail(`{${inside}} is empty`);
    this.at = close + 1;
    return `{${low}${comma ?? ""}}`;
  }

  private atom(): string {
    const c = this.chars[this.at++] as string;
    switch (c) {
      case ".":
        return ".";
      case "@":
        return ".*";
      case "#":
        return "(?!.?)";
      case "~":
        return this.fail("complement (~) is not supported");
      case "<":
        return this.fail("numeric intervals (<n-m>) and named automata are not supported");
      case "\\":
        if (this.done()) this.fail("it ends with a lone backslash");
        return literal(this.chars[this.at++] as string);
      case '"': {
        const close = this.chars.indexOf('"', this.at);
        if (close === -1) this.fail('a quoted string has no closing "');
        const text = this.chars.slice(this.at, close).map(literal).join("");
        this.at = close + 1;
        return `(?:${text})`;
      }
      case "(": {
        if (this.peek() === ")") {
          this.at++;
          return "(?:.{0})";
        }
        const inner = this.union();
        if (this.peek() !== ")") this.fail('a "(" has no closing ")"');
        this.at++;
        return `(?:${inner})`;
      }
      case "[":
        return this.charClass();
      case ")":
        return this.fail('a ")" has no opening "("');
      case "*":
      case "+":
      case "?":
      case "{":
        return this.fail(`"${c}" has nothing to repeat`);
      default:
        return literal(c);
    }
  }

  private charClass(): string {
    let out = "[";
    if (this.peek() === "^") {
      this.at++;
      out += "^";
    }
    let items = 0;
    while (this.peek() !== "]") {
      if (this.done()) this.fail('a "[" has no closing "]"');
      const from = this.classChar();
      if (this.peek() === "-" && this.chars[this.at + 1] !== "]" && this.chars[this.at + 1] !== undefined) {
        this.at++;
        const to = this.classChar();
        if ((to.codePointAt(0) ?? 0) < (from.codePointAt(0) ?? 0))
          this.fail(`the range ${from}-${to} is empty`);
        out += `${classLiteral(from)}-${classLiteral(to)}`;
      } else out += classLiteral(from);
      items++;
    }
    this.at++;
    if (items === 0) this.fail('a class "[]" is empty');
    return `${out}]`;
  }

  private classChar(): string {
    const c = this.chars[this.at++] as string;
    if (c !== "\\") return c;
    if (this.done()) this.fail("it ends with a lone backslash");
    return this.chars[this.at++] as string;
  }
}

function classLiteral(c: string): string {
  return CLASS_SYNTAX.has(c) ? `\\${c}` : c;
}
