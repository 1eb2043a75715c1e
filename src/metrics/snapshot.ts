/**
 * The database's counts, read at most once per `ttlMs` however often the metrics are scraped or the status page
 * is loaded: a scrape never loads the node. Callers arriving while a read is under way share it.
 */
import type { Database, HarvestPosition, StoredCounts, TaskCount } from "../db/types.ts";

export interface CountsSnapshot {
  takenAt: Date;
  stored: StoredCounts;
  tasks: TaskCount[];
  /** CN: each Member Node's harvest position (empty on a Member Node). */
  harvest: HarvestPosition[];
  replicaStates: Map<string, number>;
  unindexed: number;
}

export class SnapshotCache {
  private last: CountsSnapshot | undefined;
  private reading: Promise<CountsSnapshot> | undefined;

  constructor(
    private readonly db: Database,
    private readonly role: "mn" | "cn",
    private readonly ttlMs = 10_000,
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
    const [stored, tasks, harvest, replicaStates, unindexed] = await Promise.all([
      counts.stored(),
      counts.tasks(),
      this.role === "cn" ? counts.harvestPositions() : Promise.resolve([]),
      counts.replicaStates(),
      counts.unindexed(),
    ]);
    this.last = { takenAt: new Date(this.now()), stored, tasks, harvest, replicaStates, unindexed };
    return this.last;
  }
}

/** Tasks waiting or running (the queue's depth), per kind. */
export function queueDepth(tasks: readonly TaskCount[]): Map<string, number> {
  const out = new Map<string, number>();
  for (const t of tasks) if (t.state !== "dead") out.set(t.kind, (out.get(t.kind) ?? 0) + t.count);
  return out;
}
