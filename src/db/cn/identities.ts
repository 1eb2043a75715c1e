/** The CN's identity tables beyond accounts: equivalent identities, pending mapping requests, groups. */
import type { Kysely } from "kysely";
import { isUniqueViolation } from "../errors.ts";
import type { Tables } from "../schema.ts";

export interface GroupRow {
  subject: string;
  groupName: string;
  /** The Group as JSON. */
  json: string;
}

export interface CnIdentityRepository {
  equivalents(subject: string): Promise<string[]>;
  /** Both directions, in one transaction; false when already mapped. */
  addEquivalence(a: string, b: string): Promise<boolean>;
  /** Both directions; false when they were not mapped. */
  removeEquivalence(a: string, b: string): Promise<boolean>;
  /** false when the same request is already pending. */
  addPendingMap(requester: string, target: string): Promise<boolean>;
  /** false when no such request was pending. */
  removePendingMap(requester: string, target: string): Promise<boolean>;
  /** Requesters waiting for `target`'s answer. */
  pendingFor(target: string): Promise<string[]>;
  group(subject: string): Promise<GroupRow | undefined>;
  groups(): Promise<GroupRow[]>;
  /** false when the subject or the group name is taken. */
  addGroup(group: GroupRow): Promise<boolean>;
  replaceGroup(group: GroupRow): Promise<void>;
}

export function cnIdentityRepository(db: Kysely<Tables>): CnIdentityRepository {
  const toGroup = (r: Tables["cn_groups"]): GroupRow => ({
    subject: r.subject,
    groupName: r.group_name,
    json: r.group_json,
  });
  return {
    async equivalents(subject) {
      const rows = await db
        .selectFrom("cn_equivalents")
        .select("equivalent")
        .where("subject", "=", subject)
        .orderBy("equivalent")
        .execute();
      return rows.map((r) => r.equivalent);
    },
    async addEquivalence(a, b) {
      try {
        await db.transaction().execute(async (tx) => {
          await tx
            .insertInto("cn_equivalents")
            .values([
              { subject: a, equivalent: b },
              { subject: b, equivalent: a },
            ])
            .execute();
        });
        return true;
      } catch (error) {
        if (isUniqueViolation(error)) return false;
        throw error;
      }
    },
    async removeEquivalence(a, b) {
      const result = await db
        .deleteFrom("cn_equivalents")
        .where((eb) =>
          eb.or([
            eb.and([eb("subject", "=", a), eb("equivalent", "=", b)]),
            eb.and([eb("subject", "=", b), eb("equivalent", "=", a)]),
          ]),
        )
        .executeTakeFirst();
      return Number(result.numDeletedRows) > 0;
    },
    async addPendingMap(requester, target) {
      try {
        await db
          .insertInto("cn_pending_maps")
          .values({ requester, target, requested_at: Date.now() })
          .execute();
        return true;
      } catch (error) {
        if (isUniqueViolation(error)) return false;
        throw error;
      }
    },
    async removePendingMap(requester, target) {
      const result = await db
        .deleteFrom("cn_pending_maps")
        .where("requester", "=", requester)
        .where("target", "=", target)
        .executeTakeFirst();
      return Number(result.numDeletedRows) > 0;
    },
    async pendingFor(target) {
      const rows = await db
        .selectFrom("cn_pending_maps")
        .select("requester")
        .where("target", "=", target)
        .orderBy("requester")
        .execute();
      return rows.map((r) => r.requester);
    },
    async group(subject) {
      const row = await db
        .selectFrom("cn_groups")
        .selectAll()
        .where("subject", "=", subject)
        .executeTakeFirst();
      return row ? toGroup(row) : undefined;
    },
    async groups() {
      return (await db.selectFrom("cn_groups").selectAll().orderBy("subject").execute()).map(toGroup);
    },
    async addGroup(group) {
      try {
        await db
          .insertInto("cn_groups")
          .values({ subject: group.subject, group_name: group.groupName, group_json: group.json })
          .execute();
        return true;
      } catch (error) {
        if (isUniqueViolation(error)) return false;
        throw error;
      }
    },
    async replaceGroup(group) {
      await db
        .updateTable("cn_groups")
        .set({ group_json: group.json })
        .where("subject", "=", group.subject)
        .execute();
    },
  };
}
