/**
 * What some translated conditions stand for, beside their SQL: "the document has this value in this field"
 * (exactly its search_values rows, never NULL), and the and / or / not built over such conditions. The engine's
 * memory evaluates a condition made only of these from the fields' values it holds, without the database
 * (memory/evaluate.ts); any other condition is answered by its SQL.
 */
import type { Condition } from "../store/conditions.ts";

export type Shape =
  | { kind: "value"; field: string; value: string }
  | { kind: "and" | "or"; parts: readonly Condition[] }
  | { kind: "not"; part: Condition };

const shapes = new WeakMap<Condition, Shape>();

/** `condition`, noted as standing for `shape`. */
export function shaped(condition: Condition, shape: Shape): Condition {
  shapes.set(condition, shape);
  return condition;
}

export function shapeOf(condition: Condition): Shape | undefined {
  return shapes.get(condition);
}

/** The fields of a condition's value leaves, or undefined when some part is not a shape of these. */
export function valueFields(condition: Condition, into = new Set<string>()): Set<string> | undefined {
  const shape = shapes.get(condition);
  if (!shape) return undefined;
  if (shape.kind === "value") into.add(shape.field);
  else if (shape.kind === "not") return valueFields(shape.part, into);
  else for (const part of shape.parts) if (!valueFields(part, into)) return undefined;
  return into;
}
