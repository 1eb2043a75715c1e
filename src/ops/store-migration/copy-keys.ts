/**
 * One pass of a store migration: every content key the source store lists is copied to the target unless the
 * progress log has it. The copy is the target's own upload path (`stage`, which hashes the bytes in the same
 * pass that writes them), so the bytes are checked against their content key (their SHA-256) as they stream:
 * a mismatch is discarded, reported and never committed. Bytes already in the target (a run stopped before its
 * log line reached the disk) are read back and hashed instead of copied again.
 */
import { createHash } from "node:crypto";
import { inLanes } from "../../federation/harvest/page.ts";
import type { ObjectStore } from "../../store/types.ts";
import type { ProgressLog } from "./progress-log.ts";

export interface CopyProgress {
  /** Keys listed in the source so far. */
  listed: number;
  /** Keys the log had already. */
  skipped: number;
  copied: number;
  /** Keys found in the target with the right bytes. */
  present: number;
  /** Keys listed, then removed from the source before they could be read (a node deleting while it serves). */
  vanished: number;
  failed: number;
  /** Bytes copied. */
  bytes: number;
}

export interface CopyFailure {
  key: string;
  why: string;
}

export interface CopyPassOptions {
  source: ObjectStore;
  target: ObjectStore;
  log: ProgressLog;
  /** Keys copied at once. */
  concurrency: number;
  /** Every key listed in this pass is added here. */
  seen?: Set<string>;
  onProgress?: (progress: Readonly<CopyProgress>) => void;
  onFailure?: (failure: CopyFailure) => void;
}

/** Keys taken from the listing at a time, then copied `concurrency` at once. */
const BATCH = 256;

export async function copyPass(options: CopyPassOptions): Promise<CopyProgress> {
  const progress: CopyProgress = {
    listed: 0,
    skipped: 0,
    copied: 0,
    present: 0,
    vanished: 0,
    failed: 0,
    bytes: 0,
  };
  const fail = (key: string, why: string) => {
    progress.failed++;
    options.onFailure?.({ key, why });
  };
  const copyOne = async (key: string) => {
    try {
      const outcome = await copyKey(options.source, options.target, key);
      if (outcome.kind === "mismatch") {
        fail(key, `the source's bytes hash to ${outcome.sha256}: not copied (d1node audit names the object)`);
        return;
      }
      if (outcome.kind === "vanished") {
        progress.vanished++;
        return;
      }
      options.log.record(key);
      if (outcome.kind === "present") progress.present++;
      else {
        progress.copied++;
        progress.bytes += outcome.size;
      }
    } catch (error) {
      fail(key, (error as Error).message);
    } finally {
      options.onProgress?.(progress);
    }
  };
  let batch: string[] = [];
  const run = async () => {
    await inLanes(batch, options.concurrency, copyOne);
    batch = [];
  };
  for await (const key of options.source.keys()) {
    progress.listed++;
    options.seen?.add(key);
    if (options.log.done.has(key)) {
      progress.skipped++;
      continue;
    }
    batch.push(key);
    if (batch.length >= BATCH) await run();
  }
  await run();
  return progress;
}

type CopyOutcome =
  | { kind: "copied"; size: number }
  | { kind: "present" }
  | { kind: "vanished" }
  | { kind: "mismatch"; sha256: string };

/** Copies one key's bytes, checked against the key as they stream; nothing is committed unless they match. */
export async function copyKey(source: ObjectStore, target: ObjectStore, key: string): Promise<CopyOutcome> {
  if ((await target.has(key)) && (await hashOf(target, key)) === key) return { kind: "present" };
  let staged: Awaited<ReturnType<ObjectStore["stage"]>>;
  try {
    staged = await target.stage(source.read(key));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return { kind: "vanished" };
    throw error;
  }
  if (staged.key !== key) {
    await staged.discard();
    return { kind: "mismatch", sha256: staged.key };
  }
  await staged.commit();
  return { kind: "copied", size: staged.digests.size };
}

/** The SHA-256 of a key's stored bytes (undefined when they are absent). */
export async function hashOf(store: ObjectStore, key: string): Promise<string | undefined> {
  const hash = createHash("sha256");
  try {
    for await (const chunk of store.read(key) as AsyncIterable<Buffer>) hash.update(chunk);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw error;
  }
  return hash.digest("hex");
}
