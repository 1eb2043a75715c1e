/**
 * What background work reports to the node's metrics (audit results, task failures), as plain values: the node's
 * context holds them and `src/context/outcomes.ts` records and reads them.
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
  /** The latest failure's message per kind (e.g. DataCite's reason for refusing a DOI's record). */
  readonly lastTaskError?: Map<string, string>;
}
