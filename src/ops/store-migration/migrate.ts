/**
 * Moving a node's bytes to another store (`d1node store migrate`, docs/deployment.md, "Moving the bytes to
 * another store"). Every key the source lists is copied and verified (copy-keys.ts), recorded durably
 * (progress-log.ts). While the node serves (no database given), that is all: what it writes meanwhile lands in
 * the source and is copied by the next run. With the node stopped (the database given, held by this process),
 * the pass is final: afterwards every object the database knows must have its bytes in the target, and bytes
 * copied for objects deleted meanwhile are removed from the target again. Only then is the migration complete
 * and may the node's setting name the target. The source is never changed.
 */
import type { Database } from "../../db/types.ts";
import type { ObjectStore } from "../../store/types.ts";
import { type CopyFailure, type CopyProgress, copyPass, hashOf } from "./copy-keys.ts";
import type { ProgressLog } from "./progress-log.ts";

export interface MigrationSources {
  source: ObjectStore;
  target: ObjectStore;
  log: ProgressLog;
  /** The node's database, when the node is stopped (the final pass); undefined while it serves. */
  db: Database | undefined;
  concurrency: number;
  onProgress?: (progress: Readonly<CopyProgress>) => void;
  onFailure?: (failure: CopyFailure) => void;
  /** An object whose bytes are in neither store as they should be (never copied). */
  onNotCopied?: (pid: string, key: string, why: string) => void;
}

export interface MigrationResult {
  pass: CopyProgress;
  /** "serving": a pass while the node ran; "incomplete": some bytes not in the target; "complete": all are. */
  state: "serving" | "incomplete" | "complete";
  /** Objects (database rows) whose bytes are not in the target. */
  notCopied: number;
  /** Bytes copied earlier for objects deleted since, removed from the target. */
  removed: number;
}

const PAGE = 500;

export async function migrateBytes(sources: MigrationSources): Promise<MigrationResult> {
  const { db, log, target } = sources;
  const seen = db ? new Set<string>() : undefined;
  const failed = new Map<string, string>();
  const pass = await copyPass({
    source: sources.source,
    target,
    log,
    concurrency: sources.concurrency,
    ...(seen ? { seen } : {}),
    ...(sources.onProgress ? { onProgress: sources.onProgress } : {}),
    onFailure(failure) {
      failed.set(failure.key, failure.why);
      sources.onFailure?.(failure);
    },
  });
  if (!db || !seen) return { pass, state: "serving", notCopied: 0, removed: 0 };

  let notCopied = 0;
  let after: string | undefined;
  for (;;) {
    const page = await db.audit.fixityPage(after, PAGE);
    if (page.length === 0) break;
    after = page[page.length - 1]?.pid;
    for (const object of page) {
      const key = object.contentKey;
      if (log.done.has(key)) continue;
      // Not listed by the source, yet in the target already (a store the node used before): verified, kept.
      if (!failed.has(key) && (await hashOf(target, key)) === key) {
        log.record(key);
        continue;
      }
      notCopied++;
      sources.onNotCopied?.(object.pid, key, failed.get(key) ?? "the source store has no bytes under it");
    }
  }
  if (pass.failed + notCopied > 0) return { pass, state: "incomplete", notCopied, removed: 0 };
  let removed = 0;
  // Deleting from a Set while iterating it is safe: the entry is simply not visited again.
  for (const key of log.done) {
    if (seen.has(key) || (await db.objects.countByContentKey(key)) > 0) continue;
    await target.remove(key);
    log.forget(key);
    removed++;
  }
  return { pass, state: "complete", notCopied, removed };
}
