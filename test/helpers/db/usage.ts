/**
 * The usage counter run until it has counted every event logged so far. On PostgreSQL a pass stops below ids whose
 * transactions may still be open (a busy node's own work among them), so one pass may count nothing yet.
 */
import type { Database } from "../../../src/db/types.ts";
import {
  type CountOptions,
  countUsage,
  type UsageCountingContext,
} from "../../../src/services/usage/count-usage.ts";
import { pollUntil } from "../time/eventually.ts";

export type CountingContext = UsageCountingContext & { db: Pick<Database, "kysely" | "usage" | "objects"> };

export async function countEverything(ctx: CountingContext, options: CountOptions = {}): Promise<void> {
  const row = await ctx.db.kysely
    .selectFrom("events")
    .select((eb) => eb.fn.max("id").as("id"))
    .executeTakeFirst();
  const last = Number(row?.id ?? 0);
  await pollUntil(
    async () => {
      await countUsage(ctx, options);
      return ctx.db.usage.counted();
    },
    (counted) => counted >= last,
    30_000,
  );
}
