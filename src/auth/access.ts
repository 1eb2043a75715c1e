/**
 * Access decisions, in one place. "Permissions on an object come from its accessPolicy (read, write,
 * changePermission) and its rightsHolder. The subject public stands for every caller." (API text,
 * Authentication 4). changePermission implies write implies read; the rightsHolder holds every permission.
 */
import type { Config } from "../config/config.ts";
import type { Permission } from "../types/sysmeta.ts";
import { type AccessFacts, grantsOf, holds, type Readers, readersOf } from "./readers.ts";
import { AUTHENTICATED_USER, PUBLIC, type Session } from "./session.ts";

/** Whether the session holds `permission` on an object with this system metadata (the rule: readers.ts). */
export function isAllowed(session: Session, permission: Permission, sysmeta: AccessFacts): boolean {
  return holds(readersOfSession(session), grantsOfSysmeta(sysmeta), permission);
}

/**
 * Frozen system metadata (the row cache's objects, frozen deeply and shared by the requests that read them)
 * and frozen sessions (the anonymous caller's) never change: their grants and readers are made once, not at
 * every access check (docs/decisions.md, "Hot paths").
 */
const frozenGrants = new WeakMap<AccessFacts, ReadonlyMap<string, Permission>>();
const frozenReaders = new WeakMap<Session, Readers>();

function grantsOfSysmeta(sysmeta: AccessFacts): ReadonlyMap<string, Permission> {
  return keptIfFrozen(frozenGrants, sysmeta, grantsOf);
}

function readersOfSession(session: Session): Readers {
  return keptIfFrozen(frozenReaders, session, readersOf);
}

/** `make(key)`, made once and kept in `kept` when `key` is frozen. */
function keptIfFrozen<K extends object, V>(kept: WeakMap<K, V>, key: K, make: (key: K) => V): V {
  if (!Object.isFrozen(key)) return make(key);
  let value = kept.get(key);
  if (value === undefined) {
    value = make(key);
    kept.set(key, value);
  }
  return value;
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
