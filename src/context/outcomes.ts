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
import type { AuditOutcome, AuditResult, NodeOutcomes } from "../types/outcomes.ts";

export type { AuditOutcome, AuditResult, NodeOutcomes };

/** A node's outcomes, empty (one per node, opened with it: `NodeContext.outcomes`). */
export function newOutcomes(): NodeOutcomes {
  return { audits: new Map(), lastAudit: new Map(), taskFailures: new Map(), lastTaskError: new Map() };
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
export function recordTaskFailure(node: NodeRef, kind: string, error?: unknown): void {
  const failures = node.outcomes.taskFailures;
  failures.set(kind, (failures.get(kind) ?? 0) + 1);
  if (error !== undefined)
    node.outcomes.lastTaskError?.set(kind, error instanceof Error ? error.message : String(error));
}
