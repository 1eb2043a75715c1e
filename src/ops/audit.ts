/**
 * The fixity audit: every stored object's bytes are read back from disk and hashed, and the digests compared
 * with those recorded when the bytes arrived (the content key and the recorded SHA-256) and with the system
 * metadata's checksum. SHA-256 and the checksum's own algorithm are computed (one pass, both hashes): the recorded
 * MD5, SHA-1 and SHA-256 were computed in one pass over the same bytes, so a SHA-256 that matches proves the bytes
 * are the ones all of them describe. A throttle keeps the audit under a given read rate.
 */
import { createHash, type Hash } from "node:crypto";
import { setTimeout as sleep } from "node:timers/promises";
import type { AuditFinding, AuditRun, Database, RecordedFixity } from "../db/types.ts";
import { algorithmKey, type HashKey } from "../store/algorithms.ts";
import type { ObjectStore } from "../store/types.ts";

export interface AuditProgress {
  objects: number;
  bytes: number;
  mismatches: number;
  missing: number;
  repaired: number;
  /** Objects and bytes the audit will read in all (counted when it started). */
  totalObjects: number;
  totalBytes: number;
}

/** Replaces the bad bytes of an object with a verified good copy; true when it did. */
export type RepairBytes = (object: RecordedFixity, finding: AuditFinding) => Promise<boolean>;

export interface AuditOptions {
  trigger: string;
  /** Most bytes read per second (undefined: as fast as the disk and the hashes go). */
  bytesPerSecond?: number | undefined;
  onProgress?: (progress: Readonly<AuditProgress>) => void;
  /** Each finding as it is found. */
  onFinding?: (finding: AuditFinding) => void;
  repair?: RepairBytes | undefined;
  /** Stops the audit between objects (the run is then not recorded). */
  signal?: AbortSignal | undefined;
  /** Record the run in the database (default true). */
  record?: boolean;
}

export interface AuditSources {
  db: Database;
  store: ObjectStore;
}

const PAGE = 500;
/** Objects read at once: enough to overlap the disk with the hashing. */
const IN_FLIGHT = 4;

export async function auditStoredObjects(sources: AuditSources, options: AuditOptions): Promise<AuditRun> {
  const startedAt = new Date();
  const totals = await sources.db.audit.totals();
  const progress: AuditProgress = {
    objects: 0,
    bytes: 0,
    mismatches: 0,
    missing: 0,
    repaired: 0,
    totalObjects: totals.objects,
    totalBytes: totals.bytes,
  };
  const findings: AuditFinding[] = [];
  const throttle = createThrottle(options.bytesPerSecond);
  const found = async (object: RecordedFixity, finding: AuditFinding) => {
    if (finding.kind === "missing") progress.missing++;
    else progress.mismatches++;
    if (options.repair && (await options.repair(object, finding).catch(() => false))) {
      finding.repaired = true;
      progress.repaired++;
    }
    findings.push(finding);
    options.onFinding?.(finding);
  };
  const checkOne = async (object: RecordedFixity) => {
    const finding = await checkObject(sources.store, object, (n) => {
      progress.bytes += n;
      return throttle(n);
    });
    progress.objects++;
    if (finding) await found(object, finding);
    options.onProgress?.(progress);
  };

  let after: string | undefined;
  for (;;) {
    options.signal?.throwIfAborted();
    const page = await sources.db.audit.fixityPage(after, PAGE);
    if (page.length === 0) break;
    after = page[page.length - 1]?.pid;
    for (let i = 0; i < page.length; i += IN_FLIGHT) {
      options.signal?.throwIfAborted();
      await Promise.all(page.slice(i, i + IN_FLIGHT).map(checkOne));
    }
  }
  const run: AuditRun = {
    trigger: options.trigger,
    startedAt,
    finishedAt: new Date(),
    objects: progress.objects,
    bytes: progress.bytes,
    mismatches: progress.mismatches,
    missing: progress.missing,
    repaired: progress.repaired,
    findings,
  };
  if (options.record !== false) await sources.db.audit.record(run);
  return run;
}

/**
 * The one word for a finding wherever it is printed (audit, backup, restore, status page): MISSING when the bytes
 * are absent, MISMATCH when they differ from what was recorded (size, digest or checksum).
 */
export function findingWord(kind: AuditFinding["kind"]): "MISSING" | "MISMATCH" {
  return kind === "missing" ? "MISSING" : "MISMATCH";
}

/** One object's bytes against what was recorded; undefined when they match. */
export async function checkObject(
  store: ObjectStore,
  object: RecordedFixity,
  onBytes: (n: number) => Promise<void> | undefined,
): Promise<AuditFinding | undefined> {
  const about = { pid: object.pid, contentKey: object.contentKey };
  const checksumHash = algorithmKey(object.checksum.algorithm);
  const hashes = new Map<HashKey, Hash>([["sha256", createHash("sha256")]]);
  if (checksumHash && !hashes.has(checksumHash)) hashes.set(checksumHash, createHash(checksumHash));
  let size = 0;
  try {
    for await (const chunk of store.read(object.contentKey) as AsyncIterable<Buffer>) {
      size += chunk.length;
      for (const hash of hashes.values()) hash.update(chunk);
      await onBytes(chunk.length);
    }
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") {
      return { ...about, kind: "missing", detail: "the stored bytes are absent" };
    }
    throw error;
  }
  const digest = (key: HashKey) => hashes.get(key)?.digest("hex");
  const sha256 = digest("sha256");
  if (size !== object.size) {
    return { ...about, kind: "size", detail: `${size} bytes stored, ${object.size} recorded` };
  }
  if (sha256 !== object.contentKey || sha256 !== object.sha256) {
    return { ...about, kind: "digest", detail: `SHA-256 of the stored bytes is ${sha256}` };
  }
  const expected = object.checksum.value.toLowerCase();
  const actual = checksumHash === "sha256" ? sha256 : checksumHash ? digest(checksumHash) : undefined;
  if (actual === undefined) {
    return {
      ...about,
      kind: "checksum",
      detail: `the system metadata's algorithm "${object.checksum.algorithm}" cannot be computed`,
    };
  }
  if (actual !== expected) {
    return {
      ...about,
      kind: "checksum",
      detail: `${object.checksum.algorithm} of the stored bytes is ${actual}, the system metadata says ${expected}`,
    };
  }
  return undefined;
}

/** Waits as needed so that bytes are read at no more than `bytesPerSecond` on average. */
function createThrottle(bytesPerSecond: number | undefined): (n: number) => Promise<void> | undefined {
  if (!bytesPerSecond || bytesPerSecond <= 0) return () => undefined;
  const started = Date.now();
  let read = 0;
  return (n) => {
    read += n;
    const due = started + (read / bytesPerSecond) * 1000;
    const wait = due - Date.now();
    return wait > 5 ? sleep(wait) : undefined;
  };
}
