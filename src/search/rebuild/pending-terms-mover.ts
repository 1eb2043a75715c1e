/**
 * A full rebuild's moves of the terms' pending list (PostgreSQL; src/search/store/pending-terms.ts): one every
 * MOVE_EVERY documents written, beside the pages (never two at once, never holding a page back). A move that
 * fails is logged and left to the next one, or to the end's, which moves whatever is left.
 */

import type { NodeLog } from "../../types/node-log.ts";
import { MOVE_EVERY } from "../store/pending-terms.ts";

export interface PendingTermsMover {
  /** `count` more documents written. */
  written(count: number): void;
  /** Resolves once the move under way, if any, is over. */
  settled(): Promise<void>;
}

export function pendingTermsMover(
  move: () => Promise<void>,
  log?: NodeLog,
  every = MOVE_EVERY,
): PendingTermsMover {
  let since = 0;
  let running: Promise<void> | undefined;
  return {
    written(count) {
      since += count;
      if (since < every || running) return;
      since = 0;
      running = move()
        .catch((error: unknown) =>
          log?.warn({ err: error }, "search index: moving the terms' pending list failed"),
        )
        .finally(() => {
          running = undefined;
        });
    },
    async settled() {
      await running;
    },
  };
}
