/**
 * Browser sign-in records (migration 0023-browser-sessions): sessions keyed by the hash of their cookie value,
 * the sign-ins under way (each taken once), and the people who signed in. Shared by every serving process.
 */
import { type Kysely, type Selectable, sql } from "kysely";
import type { BrowserSessionStore, SignedInPerson } from "../auth/browser-session-store.ts";
import type { Tables } from "./schema.ts";

function personOf(row: Selectable<Tables["signed_in_people"]>): SignedInPerson {
  return {
    subject: row.subject,
    fullName: orUndefined(row.full_name),
    givenName: orUndefined(row.given_name),
    familyName: orUndefined(row.family_name),
    email: orUndefined(row.email),
    provider: row.provider,
  };
}

const orNull = (value: string | undefined) => value ?? null;
const orUndefined = (value: string | null) => value ?? undefined;

export function browserSessionRepository(db: Kysely<Tables>): BrowserSessionStore {
  return {
    async create(idHash, s) {
      await db
        .insertInto("browser_sessions")
        .values({
          id_hash: idHash,
          subject: s.subject,
          full_name: orNull(s.fullName),
          provider: s.provider,
          created_at: Date.now(),
          expires_at: s.expiresAt,
        })
        .execute();
    },
    async find(idHash, now) {
      const row = await db
        .selectFrom("browser_sessions")
        .select(["subject", "full_name", "provider", "expires_at"])
        .where("id_hash", "=", idHash)
        .where("expires_at", ">", now)
        .executeTakeFirst();
      if (!row) return undefined;
      return {
        subject: row.subject,
        fullName: orUndefined(row.full_name),
        provider: row.provider,
        expiresAt: Number(row.expires_at),
      };
    },
    async revoke(idHash) {
      await db.deleteFrom("browser_sessions").where("id_hash", "=", idHash).execute();
    },
    async removeExpired(now) {
      await db.deleteFrom("browser_sessions").where("expires_at", "<=", now).execute();
      await db.deleteFrom("sign_in_requests").where("expires_at", "<=", now).execute();
    },
    async saveRequest(stateHash, r) {
      await db
        .insertInto("sign_in_requests")
        .values({
          state_hash: stateHash,
          provider: r.provider,
          code_verifier: r.codeVerifier,
          nonce: r.nonce,
          target: r.target,
          expires_at: r.expiresAt,
        })
        .execute();
    },
    async takeRequest(stateHash, now) {
      // Deleted first: of two callbacks racing with one state, only the one whose delete removed the row goes on.
      const row = await db
        .deleteFrom("sign_in_requests")
        .where("state_hash", "=", stateHash)
        .returningAll()
        .executeTakeFirst();
      if (!row || Number(row.expires_at) <= now) return undefined;
      return {
        provider: row.provider,
        codeVerifier: row.code_verifier,
        nonce: row.nonce,
        target: row.target,
        expiresAt: Number(row.expires_at),
      };
    },
    async recordPerson(p, now) {
      const given = {
        full_name: orNull(p.fullName),
        given_name: orNull(p.givenName),
        family_name: orNull(p.familyName),
        email: orNull(p.email),
      };
      const update = Object.fromEntries(Object.entries(given).filter(([, v]) => v !== null));
      await db
        .insertInto("signed_in_people")
        .values({
          subject: p.subject,
          ...given,
          provider: p.provider,
          first_signed_in: now,
          last_signed_in: now,
        })
        .onConflict((oc) =>
          oc.column("subject").doUpdateSet({ ...update, provider: p.provider, last_signed_in: now }),
        )
        .execute();
    },
    async findPerson(subject) {
      const row = await db
        .selectFrom("signed_in_people")
        .selectAll()
        .where("subject", "=", subject)
        .executeTakeFirst();
      return row ? personOf(row) : undefined;
    },
    async findPeople(text, start, count) {
      const pattern = `%${text.toLowerCase().replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
      const contains = (column: string) =>
        sql<boolean>`lower(${sql.ref(column)}) like ${pattern} escape '\\'`;
      const rows = await db
        .selectFrom("signed_in_people")
        .selectAll()
        .where((eb) => eb.or([contains("subject"), contains("full_name"), contains("email")]))
        .orderBy("full_name")
        .orderBy("subject")
        .offset(start)
        .limit(count)
        .execute();
      return rows.map(personOf);
    },
  };
}
