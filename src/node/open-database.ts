/**
 * The node's database, opened with its whole schema: src/db's migrations and the search index's, merged by
 * number. Every process that opens the node's database (serve, worker, the commands, tests and benches) opens it
 * here, so each applies the same list in the same order.
 */
import { type Database, inNumberOrder, MIGRATIONS, type OpenOptions, openDatabase } from "../db/index.ts";
import { SEARCH_MIGRATIONS } from "../search/index.ts";

/** Every migration of the node, in the order a database applies them. */
export const NODE_MIGRATIONS = inNumberOrder(MIGRATIONS, SEARCH_MIGRATIONS);

export type NodeDatabaseOptions = Omit<OpenOptions, "migrations">;

export function openNodeDatabase(options: NodeDatabaseOptions): Promise<Database> {
  return openDatabase({ ...options, migrations: NODE_MIGRATIONS });
}
