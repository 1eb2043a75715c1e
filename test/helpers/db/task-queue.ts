/** The task queue as tests move it: a retry or a scheduled run made due without waiting for its time. */
import type { Database } from "../../../src/db/types.ts";

/** Makes the waiting tasks of `kind` due now, as the passing of their delay would. */
export async function makeDueNow(db: Database, kind: string): Promise<void> {
  await db.kysely
    .updateTable("tasks")
    .set({ run_at: 0 })
    .where("kind", "=", kind)
    .where("state", "=", "ready")
    .execute();
}
