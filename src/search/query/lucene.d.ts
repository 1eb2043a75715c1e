/** Types for the `lucene` package's parse tree (the package ships none). */
declare module "lucene" {
  export interface TermNode {
    field: string;
    term: string;
    quoted: boolean;
    regex: boolean;
    prefix: "+" | "-" | null;
    similarity?: number | null;
    proximity?: number | null;
    boost?: number | null;
  }
  export interface RangeNode {
    field: string;
    term_min: string;
    term_max: string;
    inclusive: "both" | "none" | "left" | "right";
  }
  export interface BinaryNode {
    left: AST | TermNode | RangeNode;
    operator?: "AND" | "OR" | "<implicit>" | "AND NOT" | "OR NOT" | "NOT";
    right?: AST | TermNode | RangeNode;
    start?: "NOT";
    parenthesized?: boolean;
    field?: string;
  }
  export type AST = BinaryNode;
  export type Node = AST | TermNode | RangeNode;
  export function parse(query: string): AST;
  const lucene: { parse: typeof parse };
  export default lucene;
}
