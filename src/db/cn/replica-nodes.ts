/**
 * The CN's record of each Member Node as a replication target (table replication_nodes): failures since its last
 * completed replica, so that "a node that keeps failing" is asked after the others.
 */
import type { Kysely } from "kysely";
import type { Tables } from "../schema.ts";

export interface NodeRecord {
  nodeId: string;
  consecutiveFailures: number;
  failures: number;
  completions: number;
  lastFailureAt: Date | undefined;
  lastFailure: string | undefined;
}

export interface ReplicaNodeRecords {
  /** Every node's record, by node id. */
  all(): Promise<Map<string, NodeRecord>>;
  /** A replication to `nodeId` failed, was refused, timed out or was found invalid. */
  recordFailure(nodeId: string, why: string, at?: Date): Promise<void>;
  /** A replica on `nodeId` was completed: its run of failures ends. */
  recordCompletion(nodeId: string, at?: Date): Promise<void>;
}

export function replicaNodeRepository(db: Kysely<Tables>): ReplicaNodeRecords {
  return {
    async all() {
      const rows = await db.selectFrom("replication_nodes").selectAll().execute();
      return new Map(
        rows.map((row) => [
          row.node_id,
          {
            nodeId: row.node_id,
            consecutiveFailures: Number(row.consecutive_failures),
            failures: Number(row.failures),
            completions: Number(row.completions),
            lastFailureAt: row.last_failure_at === null ? undefined : new Date(Number(row.last_failure_at)),
            lastFailure: row.last_failure ?? undefined,
          },
        ]),
      );
    },

    async recordFailure(nodeId, why, at = new Date()) {
      await db
        .insertInto("replication_nodes")
        .values({
          node_id: nodeId,
          consecutive_failures: 1,
          failures: 1,
          completions: 0,
          last_failure_at: at.getTime(),
          last_completion_at: null,
          last_failure: why,
        })
        .onConflict((oc) =>
          oc.column("node_id").doUpdateSet((eb) => ({
            consecutive_failures: eb("replication_nodes.consecutive_failures", "+", 1),
            failures: eb("replication_nodes.failures", "+", 1),
            last_failure_at: at.getTime(),
            last_failure: why,
          })),
        )
        .execute();
    },

    async recordCompletion(nodeId, at = new Date()) {
      await db
        .insertInto("replication_nodes")
        .values({
          node_id: nodeId,
          consecutive_failures: 0,
          failures: 0,
          completions: 1,
          last_failure_at: null,
          last_completion_at: at.getTime(),
          last_failure: null,
        })
        .onConflict((oc) =>
          oc.column("node_id").doUpdateSet((eb) => ({
            consecutive_failures: 0,
            completions: eb("replication_nodes.completions", "+", 1),
            last_completion_at: at.getTime(),
          })),
        )
        .execute();
    },
  };
}
