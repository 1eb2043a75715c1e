/**
 * What the node holds and owes, counted for its metrics and status page (`Database.counts`): objects and bytes
 * stored, the task queue by kind and state, each Member Node's harvest position (CN), replica states, and
 * objects not yet in the search index. Each method is one grouped query; callers cache the answers (a scrape
 * must not load the node: src/metrics/snapshot.ts).
 */
import { type Kysely, sql } from "kysely";
import type { Tables } from "../schema.ts";

export interface StoredCounts {
  /** Objects held as the authoritative copy (or harvested, on a CN), and their bytes. */
  objects: number;
  bytes: number;
  /** Objects held as replicas of another node's, and their bytes. */
  replicaObjects: number;
  replicaBytes: number;
  /** Bytes of the distinct content the objects reference (what the store holds: equal bytes are kept once). */
  contentBytes: number;
}

export interface TaskCount {
  kind: string;
  /** "ready": due now; "scheduled": ready but due later (the next scheduled audit); "running"; "dead". */
  state: "ready" | "scheduled" | "running" | "dead";
  count: number;
}

export interface HarvestPosition {
  nodeId: string;
  /** Everything the node listed as modified before this is synchronized (undefined: never harvested yet). */
  harvestedTo: Date | undefined;
  /** When the position last moved. */
  updatedAt: Date;
}

export interface NodeCounts {
  stored(): Promise<StoredCounts>;
  tasks(): Promise<TaskCount[]>;
  harvestPositions(): Promise<HarvestPosition[]>;
  /** Replica entries in the system metadata held, per replicationStatus (queued, requested, completed, ...). */
  replicaStates(): Promise<Map<string, number>>;
  /** Objects without a search document (written, not yet indexed). */
  unindexed(): Promise<number>;
}

const num = (value: unknown) => Number(value ?? 0);

export function nodeCountsRepository(db: Kysely<Tables>, dialect: "sqlite" | "postgres"): NodeCounts {
  // One replica entry per row of the objects' JSON replica lists.
  const replicaEntries =
    dialect === "postgres"
      ? sql<{ state: string | null; n: string }>`
          select r.value->>'replicationStatus' as state, count(*) as n
          from objects, jsonb_array_elements(objects.replicas::jsonb) as r(value)
          where objects.replicas <> '[]' group by 1`
      : sql<{ state: string | null; n: number }>`
          select json_extract(r.value, '$.replicationStatus') as state, count(*) as n
          from objects, json_each(objects.replicas) as r
          where objects.replicas <> '[]' group by 1`;
  return {
    async stored() {
      const rows = await db
        .selectFrom("objects")
        .select(({ fn }) => [
          "is_replica",
          fn.countAll<number | string>().as("n"),
          fn.coalesce(fn.sum<number | string>("size"), sql<number>`0`).as("bytes"),
        ])
        .groupBy("is_replica")
        .execute();
      const distinct = await db
        .selectFrom((eb) =>
          eb
            .selectFrom("objects")
            .select(({ fn }) => ["content_key", fn.max("size").as("size")])
            .groupBy("content_key")
            .as("content"),
        )
        .select(({ fn }) => fn.coalesce(fn.sum<number | string>("size"), sql<number>`0`).as("bytes"))
        .executeTakeFirst();
      const out: StoredCounts = {
        objects: 0,
        bytes: 0,
        replicaObjects: 0,
        replicaBytes: 0,
        contentBytes: num(distinct?.bytes),
      };
      for (const row of rows) {
        if (num(row.is_replica) === 1) {
          out.replicaObjects = num(row.n);
          out.replicaBytes = num(row.bytes);
        } else {
          out.objects = num(row.n);
          out.bytes = num(row.bytes);
        }
      }
      return out;
    },

    async tasks() {
      // The same literal in the select and the group by (PostgreSQL matches the expressions by their text).
      const later = sql<number | boolean>`(run_at > ${sql.lit(Date.now())})`;
      const rows = await db
        .selectFrom("tasks")
        .select(({ fn }) => ["kind", "state", later.as("later"), fn.countAll<number | string>().as("n")])
        .groupBy(["kind", "state", later])
        .execute();
      const merged = new Map<string, TaskCount>();
      for (const row of rows) {
        const state =
          row.state === "ready" && (row.later === true || Number(row.later) === 1) ? "scheduled" : row.state;
        const key = `${row.kind}\n${state}`;
        const entry = merged.get(key) ?? { kind: row.kind, state, count: 0 };
        entry.count += num(row.n);
        merged.set(key, entry);
      }
      return [...merged.values()];
    },

    async harvestPositions() {
      const rows = await db
        .selectFrom("harvest_progress")
        .select(["node_id", "harvested_to", "updated_at"])
        .orderBy("node_id")
        .execute();
      return rows.map((row) => ({
        nodeId: row.node_id,
        harvestedTo: row.harvested_to === null ? undefined : new Date(num(row.harvested_to)),
        updatedAt: new Date(num(row.updated_at)),
      }));
    },

    async replicaStates() {
      const { rows } = await replicaEntries.execute(db);
      return new Map(rows.map((row) => [row.state ?? "unknown", num(row.n)]));
    },

    async unindexed() {
      const row = await db
        .selectFrom("objects")
        .select(({ fn }) => fn.countAll<number | string>().as("n"))
        .where(({ not, exists, selectFrom }) =>
          not(
            exists(
              selectFrom("search_docs")
                .select(sql`1`.as("one"))
                .whereRef("search_docs.pid", "=", "objects.pid"),
            ),
          ),
        )
        .executeTakeFirst();
      return num(row?.n);
    },
  };
}
