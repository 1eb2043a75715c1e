/**
 * The fixity audit's data (`Database.audit`): the objects' recorded digests page by page, and the runs' outcomes
 * (table `audit_runs`, migration 0011) for the status page and the metrics.
 */
import type { Kysely } from "kysely";
import type { Tables } from "../schema.ts";

/** What was recorded for one object's bytes when they arrived. */
export interface RecordedFixity {
  pid: string;
  contentKey: string;
  size: number;
  md5: string;
  sha1: string;
  sha256: string;
  /** The system metadata's checksum. */
  checksum: { algorithm: string; value: string };
  /** The digest computed at upload for an algorithm beyond MD5/SHA-1/SHA-256. */
  extra?: { algorithm: string; value: string };
  isReplica: boolean;
}

export type AuditFindingKind = "missing" | "size" | "digest" | "checksum";

/** One object whose bytes do not match what was recorded. */
export interface AuditFinding {
  pid: string;
  contentKey: string;
  kind: AuditFindingKind;
  detail: string;
  /** True when a good copy replaced the bad one. */
  repaired?: boolean;
}

export interface AuditRun {
  /** "command" (`d1node audit`), "scheduled", or "node" (asked of a running node). */
  trigger: string;
  startedAt: Date;
  finishedAt: Date;
  objects: number;
  bytes: number;
  /** Objects whose bytes differ from the recorded digests, size or checksum. */
  mismatches: number;
  /** Objects whose bytes are absent. */
  missing: number;
  repaired: number;
  /** The first findings (at most MAX_RECORDED_FINDINGS). */
  findings: AuditFinding[];
}

export const MAX_RECORDED_FINDINGS = 100;

export interface AuditStore {
  /** Objects and their bytes in total (what an audit will read). */
  totals(): Promise<{ objects: number; bytes: number }>;
  /** Up to `limit` objects after `after` in PID order, with what was recorded of their bytes. */
  fixityPage(after: string | undefined, limit: number): Promise<RecordedFixity[]>;
  record(run: AuditRun): Promise<void>;
  /** The run that finished last, if any. */
  latest(): Promise<AuditRun | undefined>;
}

export function auditStore(db: Kysely<Tables>): AuditStore {
  return {
    async totals() {
      const row = await db
        .selectFrom("objects")
        .select((eb) => [eb.fn.countAll<number>().as("objects"), eb.fn.sum<number>("size").as("bytes")])
        .executeTakeFirst();
      return { objects: Number(row?.objects ?? 0), bytes: Number(row?.bytes ?? 0) };
    },

    async fixityPage(after, limit) {
      const rows = await db
        .selectFrom("objects")
        .select([
          "pid",
          "content_key",
          "size",
          "md5",
          "sha1",
          "sha256",
          "checksum_algorithm",
          "checksum_value",
          "extra_algorithm",
          "extra_value",
          "is_replica",
        ])
        .$if(after !== undefined, (q) => q.where("pid", ">", after as string))
        .orderBy("pid")
        .limit(limit)
        .execute();
      return rows.map((r) => ({
        pid: r.pid,
        contentKey: r.content_key,
        size: Number(r.size),
        md5: r.md5,
        sha1: r.sha1,
        sha256: r.sha256,
        checksum: { algorithm: r.checksum_algorithm, value: r.checksum_value },
        ...(r.extra_algorithm && r.extra_value
          ? { extra: { algorithm: r.extra_algorithm, value: r.extra_value } }
          : {}),
        isReplica: Number(r.is_replica) === 1,
      }));
    },

    async record(run) {
      await db
        .insertInto("audit_runs")
        .values({
          trigger: run.trigger,
          started_at: run.startedAt.getTime(),
          finished_at: run.finishedAt.getTime(),
          objects: run.objects,
          bytes: run.bytes,
          mismatches: run.mismatches,
          missing: run.missing,
          repaired: run.repaired,
          findings: JSON.stringify(run.findings.slice(0, MAX_RECORDED_FINDINGS)),
        })
        .execute();
    },

    async latest() {
      const row = await db
        .selectFrom("audit_runs")
        .selectAll()
        .orderBy("finished_at", "desc")
        .orderBy("id", "desc")
        .limit(1)
        .executeTakeFirst();
      if (!row) return undefined;
      return {
        trigger: row.trigger,
        startedAt: new Date(Number(row.started_at)),
        finishedAt: new Date(Number(row.finished_at)),
        objects: Number(row.objects),
        bytes: Number(row.bytes),
        mismatches: Number(row.mismatches),
        missing: Number(row.missing),
        repaired: Number(row.repaired),
        findings: JSON.parse(row.findings) as AuditFinding[],
      };
    },
  };
}
