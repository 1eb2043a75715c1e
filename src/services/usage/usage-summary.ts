/**
 * The counts a landing page shows: unique investigations as views and unique requests as downloads, all months
 * so far; for a metadata object its dataset's (over what it documents), for any other object its own.
 */
import type { NodeContext } from "../../context/node-context.ts";
import type { UsageMonth } from "../../db/types.ts";
import type { StoredObject } from "../../types/stored-object.ts";
import type { UsageSummary } from "../../views/model.ts";

const ALL_MONTHS = [190001, 999912] as const;

export async function usageSummary(
  ctx: Pick<NodeContext, "db" | "formats">,
  object: StoredObject,
): Promise<UsageSummary> {
  const { identifier, formatId } = object.sysmeta;
  const isMetadata = ctx.formats.get(formatId)?.formatType === "METADATA";
  const months: UsageMonth[] = isMetadata
    ? await ctx.db.usage.datasetMonths(identifier, ...ALL_MONTHS)
    : await ctx.db.usage.objectMonths(identifier, ...ALL_MONTHS);
  let views = 0;
  let downloads = 0;
  for (const m of months) {
    views += m.uniqueInvestigations;
    downloads += m.uniqueRequests;
  }
  return { views, downloads };
}
