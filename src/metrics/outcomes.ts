/**
 * Outcomes that background work reports to the node's metrics: audit results and task failures. Counted per
 * node (`NodeContext.outcomes`; several nodes may run in one process), in memory: they start from zero with the process,
 * as Prometheus counters do. Work running in another process (`d1node worker`, a command) counts there and is not
 * seen by the serving node; what it keeps in the database (dead tasks) is counted from the database instead.
 *
 * Audits call `recordAuditResult` once per object or replica checked, e.g.
 * `recordAuditResult(ctx, { kind: "replica", outcome: "invalid" })`; the metrics expose
 * `d1node_audit_results_total{kind,outcome}` and `d1node_audit_last_timestamp_seconds{kind}`.
 */
/** What one check found: the copy is good, is bad (wrong checksum, missing), or could not be checked. */
export type AuditOutcome = "valid" | "invalid" | "unreachable" | "error";

export interface AuditResult {
  /** What was audited: "replica" (a CN checking a Member Node's copy), "fixity" (the node's own bytes), ... */
  kind: string;
  outcome: AuditOutcome;
  /** When the check ran (default: now). */
  at?: Date;
}

export interface NodeOutcomes {
  /** Checks per kind and outcome. */
  readonly audits: Map<string, Map<AuditOutcome, number>>;
  /** The latest check per kind. */
  readonly lastAudit: Map<string, Date>;
  /** Failed task runs per kind (retried or kept dead). */
  readonly taskFailures: Map<string, number>;
}

/** A node's outcomes, empty (one per node, opened with it: `NodeContext.outcomes`). */
export function newOutcomes(): NodeOutcomes {
  return { audits: new Map(), lastAudit: new Map(), taskFailures: new Map() };
}

type NodeRef = { outcomes: NodeOutcomes };

/** One audit check finished. */
export function recordAuditResult(node: NodeRef, result: AuditResult): void {
  const { outcomes } = node;
  let perKind = outcomes.audits.get(result.kind);
  if (!perKind) {
    perKind = new Map();
    outcomes.audits.set(result.kind, perKind);
  }
  perKind.set(result.outcome, (perKind.get(result.outcome) ?? 0) + 1);
  outcomes.lastAudit.set(result.kind, result.at ?? new Date());
}

/** One run of a background task failed (it will be retried, or kept as dead). */
export function recordTaskFailure(node: NodeRef, kind: string): void {
  const failures = node.outcomes.taskFailures;
  failures.set(kind, (failures.get(kind) ?? 0) + 1);
}
