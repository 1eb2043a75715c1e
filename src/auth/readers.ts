/**
 * Who may read an object, defined once. "Permissions on an object come from its accessPolicy (read, write,
 * changePermission) and its rightsHolder. The subject public stands for every caller." (API text,
 * Authentication 4). changePermission implies write implies read; the rightsHolder holds every permission;
 * node administrators and Coordinating Nodes read everything.
 *
 * Every encoding of "readable by these subjects" is derived from `grantsOf` and `readersOf`: the access function
 * (`access.ts`), the access rows the object list and event log filters probe in SQL (`src/db/objects/rows.ts`), the list
 * caches' predicate (`src/db/lists/filters.ts` objectIncludes) and the search index's access fields and is_public
 * column (`src/search/schema/sysmeta-fields.ts`, searched by `src/search/store/conditions.ts`). test/db/objects/readable-by.test.ts
 * checks that they all agree.
 *
 * Pure: imports types alone, so the rule can be used (and unit-tested) without the node around it.
 */
import type { Permission, SystemMetadata } from "../types/sysmeta.ts";
import type { Session } from "./session.ts";
import { PUBLIC } from "./subjects.ts";

/** changePermission implies write implies read. */
export const PERMISSION_RANK: Readonly<Record<Permission, number>> = {
  read: 1,
  write: 2,
  changePermission: 3,
};

/** What a grant depends on: the rights holder and the access policy. */
export type AccessFacts = Pick<SystemMetadata, "rightsHolder" | "accessPolicy">;

/**
 * Every subject holding some permission on the object, with the strongest it holds: the rights holder
 * (changePermission) and each subject an allow rule names with at least one permission.
 */
export function grantsOf(sysmeta: AccessFacts): Map<string, Permission> {
  const strongest = new Map<string, Permission>([[sysmeta.rightsHolder, "changePermission"]]);
  for (const rule of sysmeta.accessPolicy) {
    for (const permission of rule.permissions) {
      for (const subject of rule.subjects) {
        const held = strongest.get(subject);
        if (held === undefined || PERMISSION_RANK[permission] > PERMISSION_RANK[held]) {
          strongest.set(subject, permission);
        }
      }
    }
  }
  return strongest;
}

/** Who reads: "all" (administrators, CNs), or the subjects to look for among the grants (always with public). */
export type Readers = "all" | ReadonlySet<string>;

/** The readers a session stands for: "The subject public stands for every caller." */
export function readersOf(session: Pick<Session, "subjects" | "isAdmin" | "isCn">): Readers {
  if (session.isAdmin || session.isCn) return "all";
  return new Set([...session.subjects, PUBLIC]);
}

/** Whether one of the readers holds `permission` (or a stronger one) on an object with these grants. */
export function holds(
  readers: Readers,
  grants: ReadonlyMap<string, Permission>,
  permission: Permission = "read",
): boolean {
  if (readers === "all") return true;
  const needed = PERMISSION_RANK[permission];
  for (const subject of readers) {
    const held = grants.get(subject);
    if (held !== undefined && PERMISSION_RANK[held] >= needed) return true;
  }
  return false;
}

/** Whether one of the readers may read the object. */
export function mayRead(readers: Readers, sysmeta: AccessFacts): boolean {
  return holds(readers, grantsOf(sysmeta));
}

/** Whether every caller may read the object (the search index's isPublic). */
export function isPublic(sysmeta: AccessFacts): boolean {
  return grantsOf(sysmeta).has(PUBLIC);
}
