/** Which datasets a caller may see the usage of: those whose metadata object it may read. */
import { isAllowed } from "../../auth/access.ts";
import type { Session } from "../../auth/session.ts";
import type { NodeContext } from "../../context/node-context.ts";

/** Objects looked up per query. */
const PIDS_PER_LOOKUP = 500;

export function readableBy(
  ctx: Pick<NodeContext, "db">,
  session: Session,
): (pids: readonly string[]) => Promise<Set<string>> {
  return async (pids) => {
    const readable = new Set<string>();
    for (let i = 0; i < pids.length; i += PIDS_PER_LOOKUP) {
      const found = await ctx.db.objects.getMany(pids.slice(i, i + PIDS_PER_LOOKUP));
      for (const [pid, object] of found) if (isAllowed(session, "read", object.sysmeta)) readable.add(pid);
    }
    return readable;
  };
}
