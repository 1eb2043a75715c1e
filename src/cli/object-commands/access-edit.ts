/**
 * The access-policy changes `d1node object set-access` takes: `--public` (anyone may read), `--deny-public`
 * (the subject "public" leaves every rule), `--allow SUBJECT=PERMISSION` (repeatable) and `--revoke SUBJECT`
 * (the subject leaves every rule). Rules already there are kept as they are; a permission already granted to
 * a subject is not added again.
 */
import { type AccessRule, PERMISSIONS, type Permission } from "../../types/index.ts";
import { OperatorError } from "../operator-error.ts";

/** DataONE's subject for anyone, authenticated or not. */
export const PUBLIC = "public";

export interface AccessFlags {
  public?: boolean;
  denyPublic?: boolean;
  allow?: string[];
  revoke?: string[];
}

export interface AccessEdit {
  allow: { subject: string; permission: Permission }[];
  revoke: string[];
}

/** The flags as one edit; one line for a malformed or contradictory flag (exit 2). */
export function accessEditOf(flags: AccessFlags): AccessEdit {
  if (flags.public && flags.denyPublic)
    throw new OperatorError("--public and --deny-public contradict each other");
  const allow = (flags.allow ?? []).map(parseGrant);
  if (flags.public) allow.push({ subject: PUBLIC, permission: "read" });
  const revoke = [...(flags.revoke ?? []), ...(flags.denyPublic ? [PUBLIC] : [])];
  const both = allow.find((grant) => revoke.includes(grant.subject));
  if (both) throw new OperatorError(`"${both.subject}" is both allowed and revoked: give one`);
  if (allow.length === 0 && revoke.length === 0) {
    throw new OperatorError(
      "say what to change: --public, --deny-public, --allow SUBJECT=PERMISSION or --revoke SUBJECT",
    );
  }
  return { allow, revoke };
}

function parseGrant(text: string): { subject: string; permission: Permission } {
  const at = text.lastIndexOf("=");
  const subject = text.slice(0, at).trim();
  const permission = text.slice(at + 1).trim() as Permission;
  if (at <= 0 || !subject || !PERMISSIONS.includes(permission)) {
    throw new OperatorError(
      `--allow takes SUBJECT=PERMISSION with read, write or changePermission, not "${text}"`,
    );
  }
  return { subject, permission };
}

/** The policy after the edit (the same rules in the same order, revoked subjects out, new grants last). */
export function applyAccessEdit(rules: readonly AccessRule[], edit: AccessEdit): AccessRule[] {
  const kept = rules
    .map((rule) => ({ ...rule, subjects: rule.subjects.filter((s) => !edit.revoke.includes(s)) }))
    .filter((rule) => rule.subjects.length > 0 && rule.permissions.length > 0);
  const granted = (subject: string, permission: Permission) =>
    kept.some((rule) => rule.subjects.includes(subject) && rule.permissions.includes(permission));
  for (const { subject, permission } of edit.allow) {
    if (!granted(subject, permission)) kept.push({ subjects: [subject], permissions: [permission] });
  }
  return kept;
}

/** Whether two policies grant the same (as sets of subject-permission pairs). */
export function samePolicy(a: readonly AccessRule[], b: readonly AccessRule[]): boolean {
  const pairs = (rules: readonly AccessRule[]) =>
    new Set(rules.flatMap((r) => r.subjects.flatMap((s) => r.permissions.map((p) => `${p}\u0000${s}`))));
  const left = pairs(a);
  const right = pairs(b);
  return left.size === right.size && [...left].every((pair) => right.has(pair));
}
