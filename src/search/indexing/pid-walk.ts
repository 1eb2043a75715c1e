/**
 * The PIDs indexing in bulk walks, each side of the wall read on its own: the objects' PIDs from the node
 * (`ctx.db.objects`) and which of them have a document from the index's tables; the documents' PIDs from the
 * index and which of them still have an object from the node. Every read is a keyset page of bounded size, in the
 * database's PID order, so a walk over millions of objects is one pass whatever the node holds.
 */
import { type IndexContext, indexTables } from "./indexer.ts";

/** PIDs read per page of a walk that keeps only some of them. */
export const WALK_PAGE = 2000;

/**
 * Pages of `size` object PIDs after `after` (undefined: from the first) in PID order, the last one shorter;
 * `missingOnly`: only the objects that have no document when their walk page is read.
 */
export async function* objectPidPages(
  ctx: IndexContext,
  after: string | undefined,
  size: number,
  missingOnly: boolean,
): AsyncGenerator<string[], void> {
  let cursor = after;
  const missing: string[] = [];
  for (;;) {
    const walked = await ctx.db.objects.pidsAfter("all", cursor, missingOnly ? WALK_PAGE : size);
    if (walked.length === 0) break;
    cursor = walked.at(-1);
    if (!missingOnly) {
      yield walked;
      continue;
    }
    const documented = await indexTables(ctx).documentedAmong(walked);
    for (const pid of walked) if (!documented.has(pid)) missing.push(pid);
    while (missing.length >= size) yield missing.splice(0, size);
  }
  if (missing.length > 0) yield missing;
}

/** How many object PIDs `objectPidPages` gives from `after` (`missingOnly`: a walk of its own). */
export async function countObjectPids(
  ctx: IndexContext,
  after: string | undefined,
  missingOnly: boolean,
): Promise<number> {
  if (!missingOnly) return ctx.db.objects.countAfter(after);
  let count = 0;
  for await (const pids of objectPidPages(ctx, after, WALK_PAGE, true)) count += pids.length;
  return count;
}

/**
 * The PIDs of documents (kind "documents") or of resource maps with relations (kind "maps") whose object no
 * longer exists, in PID order, in pages of at most WALK_PAGE.
 */
export async function* goneObjectPages(
  ctx: IndexContext,
  kind: "documents" | "maps",
): AsyncGenerator<string[], void> {
  let after: string | undefined;
  for (;;) {
    const indexed = await indexTables(ctx).indexedPidsAfter(kind, after, WALK_PAGE);
    if (indexed.length === 0) return;
    after = indexed.at(-1);
    const existing = await ctx.db.objects.versionsOf(indexed);
    const gone = indexed.filter((pid) => !existing.has(pid));
    if (gone.length > 0) yield gone;
  }
}
