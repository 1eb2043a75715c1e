/**
 * The documents a search part matches. A part made only of field values (`keywords:"a b" AND NOT site:x`,
 * see condition-shapes.ts) whose fields this memory holds is worked out from their values here, as a Lucene
 * index answers a term query, set by set; anything else is an SQL condition whose documents the clause cache
 * keeps. Both give the same documents: a value leaf's SQL asks for exactly the rows a column holds.
 */
import { type Shape, shapeOf, valueFields } from "../query/condition-shapes.ts";
import { type Condition, TRUE } from "../query/query-sql.ts";
import type { Bitset } from "./bitset.ts";
import type { SearchMemory } from "./index.ts";

export async function matching(memory: SearchMemory, part: Condition): Promise<Bitset> {
  const fields = valueFields(part);
  if (fields && [...fields].every((field) => memory.holds(field))) return fromValues(memory, part);
  return memory.clauses.matching(part);
}

/**
 * A new set of the documents `part` matches. Each step's set is new, so the steps combine them in place: one
 * set a value, none for the joins (each set is a bit per document: 312 KB at 2,500,000).
 */
async function fromValues(memory: SearchMemory, part: Condition): Promise<Bitset> {
  const shape = shapeOf(part) as Shape;
  switch (shape.kind) {
    case "value":
      return (await memory.column(shape.field)).docsWith(shape.value);
    case "not": {
      const all = await memory.clauses.matching(TRUE);
      return (await fromValues(memory, shape.part)).invertWithin(all);
    }
    case "and":
    case "or": {
      const sets: Bitset[] = [];
      for (const each of shape.parts) sets.push(await fromValues(memory, each));
      const [first, ...rest] = sets as [Bitset, ...Bitset[]];
      return shape.kind === "and" ? first.keepCommon(rest) : first.addAll(rest);
    }
  }
}
