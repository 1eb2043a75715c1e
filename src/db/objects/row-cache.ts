/** The objects repository's cache of recently read rows. */
import type { StoredObject } from "../types.ts";

/**
 * Recently read objects by PID, least recently used first: a hit skips the database and the row conversion
 * (docs/decisions.md, "Hot paths"). Writes report their PIDs through forget(): this process's own once
 * committed, other processes' (PostgreSQL) as the change feed hears of them; while the feed cannot hear, the
 * cache is distrusted and keeps nothing. A read that overlapped a forget does not keep its object. Kept
 * objects are frozen, deeply: callers share them and must copy to change anything.
 */
export class RowCache {
  private readonly objects = new Map<string, StoredObject>();
  /** Moves on with every forget. */
  private version = 0;
  private trusted = true;

  constructor(private readonly capacity: number) {}

  get stamp(): number {
    return this.version;
  }

  get(pid: string): StoredObject | undefined {
    const object = this.objects.get(pid);
    if (object) {
      this.objects.delete(pid);
      this.objects.set(pid, object);
    }
    return object;
  }

  /** Keep a committed object, read when the stamp was `stamp`. */
  put(object: StoredObject, stamp: number): void {
    if (stamp !== this.version || !this.trusted || this.capacity <= 0) return;
    const pid = object.sysmeta.identifier;
    this.objects.delete(pid);
    this.objects.set(pid, deepFreeze(object));
    if (this.objects.size > this.capacity) {
      const oldest = this.objects.keys().next().value;
      if (oldest !== undefined) this.objects.delete(oldest);
    }
  }

  /** false: writes may go unheard (forget everything, keep nothing); true: they are heard again. */
  trust(heard: boolean): void {
    this.trusted = heard;
    this.forget();
  }

  /** A write touched `pid` (undefined: any row). */
  forget(pid?: string): void {
    if (pid === undefined) this.objects.clear();
    else this.objects.delete(pid);
    this.version++;
  }
}

function deepFreeze<T>(value: T): T {
  if (value && typeof value === "object" && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const inner of Object.values(value)) deepFreeze(inner);
  }
  return value;
}
