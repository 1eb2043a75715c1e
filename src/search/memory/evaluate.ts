/**
 * The documents a search part matches. A part made only of field values (`keywords:"a b" AND NOT site:x`,
 * see condition-shapes.ts) whose fields this memory holds is worked out from their values here, as a Lucene
 * index answers a term query, set by set; anything else is an SQL condition whose documents the clause cache
 * keeps. Both give the same documents: a value leaf's SQL asks for exactly the rows a column holds.
 */
import { type Shape, shapeOf, valueFields } from "../condition-shapes.ts";
import { type Condition, TRUE } from "../query-sql.ts";
import { Bitset } from "./bitset.ts";
import type { SearchMemory } from "./index.ts";

export async function matching(memory: SearchMemory, part: Condition): Promise<Bitset> {
  const fields = valueFields(part);
  if (fields && [...fields].every((field) => memory.holds(field))) return fromValues(memory, part);
  return memory.clauses.matching(part);
}

async function fromValues(memory: SearchMemory, part: Condition): Promise<Bitset> {
  const shape = shapeOf(part) as Shape;
  switch (shape.kind) {
    case "value":
      return (await memory.column(shape.field)).docsWith(shape.value);
    case "not":
      return Bitset.difference(await memory.clauses.matching(TRUE), await fromValues(memory, shape.part));
    case "and":
    case "or": {
      const sets: Bitset[] = [];
      for (const each of shape.parts) sets.push(await fromValues(memory, each));
      return shape.kind === "and" ? Bitset.intersection(sets) : Bitset.union(sets);
    }
  }
}
