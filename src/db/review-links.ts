/**
 * Reviewer links (migration 0027-review-links): each kept under its public id with the SHA-256 of its secret.
 * Shared by every serving process: a revocation is seen by the next request whichever process serves it.
 */
import type { Kysely, Selectable } from "kysely";
import type { ReviewLinkRecord, ReviewLinkStore } from "../auth/review-link-store.ts";
import type { Tables } from "./schema.ts";

const LISTED_AT_MOST = 1000;

function linkOf(row: Selectable<Tables["review_links"]>): ReviewLinkRecord {
  return {
    id: row.id,
    pid: row.pid,
    packagePid: row.package_pid ?? undefined,
    rightsHolder: row.rights_holder,
    createdBy: row.created_by,
    anonymise: Number(row.anonymise) === 1,
    label: row.label ?? undefined,
    createdAt: Number(row.created_at),
    expiresAt: Number(row.expires_at),
    revokedAt: row.revoked_at === null ? undefined : Number(row.revoked_at),
  };
}

export function reviewLinkRepository(db: Kysely<Tables>): ReviewLinkStore {
  return {
    async create(link, secretHash) {
      await db
        .insertInto("review_links")
        .values({
          id: link.id,
          secret_hash: secretHash,
          pid: link.pid,
          package_pid: link.packagePid ?? null,
          rights_holder: link.rightsHolder,
          created_by: link.createdBy,
          anonymise: link.anonymise ? 1 : 0,
          label: link.label ?? null,
          created_at: link.createdAt,
          expires_at: link.expiresAt,
          revoked_at: null,
        })
        .execute();
    },
    async find(id) {
      const row = await db.selectFrom("review_links").selectAll().where("id", "=", id).executeTakeFirst();
      return row ? { link: linkOf(row), secretHash: row.secret_hash } : undefined;
    },
    async list({ pid, rightsHolders }) {
      if (rightsHolders?.length === 0) return [];
      let query = db.selectFrom("review_links").selectAll();
      if (pid !== undefined) query = query.where("pid", "=", pid);
      if (rightsHolders !== undefined) query = query.where("rights_holder", "in", [...rightsHolders]);
      const rows = await query.orderBy("created_at", "desc").orderBy("id").limit(LISTED_AT_MOST).execute();
      return rows.map(linkOf);
    },
    async revoke(id, at) {
      await db
        .updateTable("review_links")
        .set({ revoked_at: at })
        .where("id", "=", id)
        .where("revoked_at", "is", null)
        .execute();
    },
  };
}
