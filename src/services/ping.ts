/**
 * MNCore.ping / CNCore.ping: "The node does a minimal, low-impact internal check because pings come every few
 * minutes." The check is one indexed lookup in the database; a database that does not answer within a few
 * seconds makes the ping a ServiceFailure ("Any non-200 status means offline") rather than a hang.
 */

import type { NodeContext } from "../context/node-context.ts";
import { ServiceFailure } from "../errors/exceptions.ts";

/** A ping answers within this many seconds at most (fewer when the statement timeout is shorter). */
const PING_SECONDS = 5;

export async function checkHealth(ctx: NodeContext): Promise<void> {
  if (ctx.draining) {
    throw new ServiceFailure("This process is shutting down: it takes no new requests once its grace ends.");
  }
  const seconds = Math.min(PING_SECONDS, ctx.config.databaseStatementTimeout);
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new ServiceFailure(`The database did not answer within ${seconds} s.`)),
      seconds * 1000,
    );
  });
  const lookup = ctx.db.objects.isIdentifierInUse("");
  // A lookup that fails after the answer was given is of no further interest.
  lookup.catch(() => undefined);
  try {
    await Promise.race([lookup, late]);
  } catch (error) {
    if (error instanceof ServiceFailure) throw error;
    throw new ServiceFailure("The database failed to answer the node's health check.");
  } finally {
    clearTimeout(timer);
  }
}
