/**
 * Subject expansion from a SubjectInfo document, as DataONE's d1_common.cert.subject_info does it: starting from
 * the authenticated subject (and authenticatedUser), add every subject connected to it. A Person record of a
 * subject adds its equivalentIdentity subjects (followed in turn), its isMemberOf groups (followed as groups only)
 * and, when verified, verifiedUser; a Group whose hasMember names a subject adds the group's subject. "Groups add
 * access for their members, not the other way around": group members are never added.
 */
import type { SubjectInfo } from "../types/index.ts";

export const PUBLIC = "public";
export const AUTHENTICATED_USER = "authenticatedUser";
export const VERIFIED_USER = "verifiedUser";

const SYMBOLIC = new Set([PUBLIC, AUTHENTICATED_USER, VERIFIED_USER].map((s) => s.toLowerCase()));

/** Whether `subject` is one that every caller (or every authenticated one) holds: it identifies nobody. */
export function isSymbolicSubject(subject: string): boolean {
  return SYMBOLIC.has(subject.trim().toLowerCase());
}

/** Every subject `primary` stands for according to `info` (always including `primary` and authenticatedUser). */
export function expandSubjects(primary: string, info: SubjectInfo): Set<string> {
  const visited = new Set<string>();
  const add = (subject: string, groupOnly = false): void => {
    if (visited.has(subject)) return;
    visited.add(subject);
    if (!groupOnly) {
      for (const person of info.persons) {
        if (person.subject !== subject) continue;
        if (person.verified) add(VERIFIED_USER);
        for (const equivalent of person.equivalentIdentities) add(equivalent);
        for (const group of person.isMemberOf) add(group, true);
      }
    }
    for (const group of info.groups) {
      if (group.hasMembers.includes(subject)) add(group.subject);
    }
  };
  add(primary);
  add(AUTHENTICATED_USER);
  return visited;
}
