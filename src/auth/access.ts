/**
 * Access decisions, in one place. "Permissions on an object come from its accessPolicy (read, write,
 * changePermission) and its rightsHolder. The subject public stands for every caller." (API text,
 * Authentication 4). changePermission implies write implies read; the rightsHolder holds every permission.
 */
import type { Config } from "../config/config.ts";
import type { Permission } from "../types/sysmeta.ts";
import { type AccessFacts, grantsOf, holds, readersOf } from "./readers.ts";
import { AUTHENTICATED_USER, PUBLIC, type Session } from "./session.ts";

/** Whether the session holds `permission` on an object with this system metadata (the rule: readers.ts). */
export function isAllowed(session: Session, permission: Permission, sysmeta: AccessFacts): boolean {
  return holds(readersOf(session), grantsOf(sysmeta), permission);
}

/** The subjects a list must be filtered by, or undefined when the session may read everything. */
export function readFilter(session: Session): string[] | undefined {
  const readers = readersOf(session);
  return readers === "all" ? undefined : [...readers];
}

/** Node administrators and Coordinating Nodes: the callers the CN-only operations accept. */
export function isTrusted(session: Session): boolean {
  return session.isAdmin || session.isCn;
}

/** Whether the session may create objects: a subject on the submitter allow-list, or a trusted caller. */
export function maySubmit(session: Session, submitters: readonly string[]): boolean {
  return (
    isTrusted(session) ||
    submitters.some((s) => session.subjects.has(s) && s !== PUBLIC) ||
    submitters.includes(PUBLIC)
  );
}

/** Whether the allow-list lets every authenticated caller submit (then MNStorage publishes no restriction). */
export function submissionOpen(submitters: readonly string[]): boolean {
  return submitters.includes(PUBLIC) || submitters.includes(AUTHENTICATED_USER);
}

/**
 * MNCore.getLogRecords: "Access MUST allow CNs and MAY allow more callers". logReaders "trusted": CNs and node
 * administrators; "readers": anyone, each seeing the records of the objects they may read (see readFilter).
 */
export function mayReadLog(session: Session, logReaders: Config["logReaders"]): boolean {
  return isTrusted(session) || logReaders === "readers";
}
