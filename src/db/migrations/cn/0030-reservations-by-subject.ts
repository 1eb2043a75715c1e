/**
 * 0030-reservations-by-subject: a subject's open reservations are counted against `reservationMaxOpen` on every
 * reserveIdentifier, so they are found by subject, not by reading every reservation.
 */
import { sql } from "kysely";
import type { Migration } from "../migration.ts";

export const reservationsBySubjectMigration: Migration = {
  name: "0030-reservations-by-subject",
  async up(db) {
    await sql`create index cn_reservations_subject on cn_reservations (subject)`.execute(db);
  },
};
