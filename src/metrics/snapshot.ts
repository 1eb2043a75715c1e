/**
 * The database's counts, read at most once per `ttlMs` (30 s) however often the metrics are scraped or the status page
 * is loaded: a scrape never loads the node. Callers arriving while a read is under way share it.
 */
import type { Database, HarvestPosition, StoredCounts, TaskCount } from "../db/types.ts";
import type { UploadTotals } from "../db/upload-records.ts";

/**
 * How long counts are reused. Counting objects, bytes and objects without a search document scans the objects
 * table (about 0.15 s per 100,000 objects on PostgreSQL), so a node scraped every 15 s reads them every other
 * scrape at most.
 */
export const SNAPSHOT_TTL_MS = 30_000;

export interface CountsSnapshot {
  takenAt: Date;
  stored: StoredCounts;
  tasks: TaskCount[];
  /** CN: each Member Node's harvest position (empty on a Member Node). */
  harvest: HarvestPosition[];
  /** CN: replica entries by replicationStatus (empty on a Member Node, whose lists are the CN's to keep). */
  replicaStates: Map<string, number>;
  unindexed: number;
  /** Resumable uploads not yet used up (any process's), and the bytes they received (none on a CN). */
  uploads: UploadTotals;
}

export class SnapshotCache {
  private last: CountsSnapshot | undefined;
  private reading: Promise<CountsSnapshot> | undefined;

  constructor(
    private readonly db: Database,
    private readonly role: "mn" | "cn",
    private readonly ttlMs = SNAPSHOT_TTL_MS,
    private readonly now: () => number = Date.now,
  ) {}

  get(): Promise<CountsSnapshot> {
    if (this.last && this.now() - this.last.takenAt.getTime() < this.ttlMs) return Promise.resolve(this.last);
    this.reading ??= this.read().finally(() => {
      this.reading = undefined;
    });
    return this.reading;
  }

  private async read(): Promise<CountsSnapshot> {
    const counts = this.db.counts;
    const [stored, tasks, harvest, replicaStates, unindexed, uploads] = await Promise.all([
      counts.stored(),
      counts.tasks(),
      this.role === "cn" ? counts.harvestPositions() : Promise.resolve([]),
      this.role === "cn" ? counts.replicaStates() : Promise.resolve(new Map<string, number>()),
      counts.unindexed(),
      this.role === "mn" ? this.db.uploads.totals() : Promise.resolve({ uploads: 0, bytes: 0 }),
    ]);
    this.last = { takenAt: new Date(this.now()), stored, tasks, harvest, replicaStates, unindexed, uploads };
    return this.last;
  }
}

/** Tasks due and waiting, or running (the queue's depth), per kind; those scheduled for later are not behind. */
export function queueDepth(tasks: readonly TaskCount[]): Map<string, number> {
  const out = new Map<string, number>();
  for (const t of tasks) {
    if (t.state === "ready" || t.state === "running") out.set(t.kind, (out.get(t.kind) ?? 0) + t.count);
  }
  return out;
}
