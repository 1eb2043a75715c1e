/** SQL pieces of the keysEvery queries of the pager's sources (pager.ts): every STEP-th sort key of a list. */
import { type RawBuilder, type SqlBool, sql } from "kysely";

/** For keysEvery queries: `n`, each row's 1-based position in the list's order (`order`: its sort columns). */
export function rowNumber(order: RawBuilder<unknown>) {
  return sql<number>`row_number() over (order by ${order})`.as("n");
}

/** Rows a keysEvery query reads: up to its last hop. */
export function hopRows(first: number, step: number, hops: number): number {
  return first + step * (hops - 1);
}

/** The rows of the hops: positions first, first + step, ... */
export function everyStep(first: number, step: number) {
  return sql<SqlBool>`n >= ${first} and (n - ${first}) % ${step} = 0`;
}
