/**
 * Indexing after the commit, coalesced across concurrent writes: while one batch is being indexed, the writes
 * that commit meanwhile wait, and their new objects are then indexed together, in one transaction (one index
 * transaction per 1 KiB create wrote ~40 pages of SQLite's log, and is a commit of its own on PostgreSQL). Each
 * write still returns only once its own objects are indexed, so that a caller reads its own write in search.
 * Writes that change or remove objects are indexed on their own, in commit order.
 * A batch waits, while other writes are under way (their bytes staged, about to commit: writes-under-way.ts), up
 * to GATHER_MS for them, then for the next turn of the event loop (`nextTurn`): started at once, it would find
 * them still waiting for SQLite's one connection.
 */
import type { ObjectChange } from "../../objects/changes.ts";
import { indexChanges } from "./hooks.ts";
import type { IndexContext } from "./indexer.ts";
import type { WritesUnderWay } from "./writes-under-way.ts";

/**
 * How long a batch waits at most for the writes under way: long enough for concurrent creates to join it, short
 * against a create's own time (docs/decisions.md, "Search: figures behind the code's choices").
 */
const GATHER_MS = 3;

interface Waiting {
  changes: readonly ObjectChange[];
  done: () => void;
}

/** `indexChanges` for one node, with the new objects of writes that commit while it is busy indexed together. */
export function coalescedIndexing(
  ctx: IndexContext,
  underWay?: WritesUnderWay,
): (changes: readonly ObjectChange[]) => Promise<void> {
  let waiting: Waiting[] = [];
  let draining = false;

  const drain = async (): Promise<void> => {
    draining = true;
    try {
      while (waiting.length > 0) {
        // The writes that end meanwhile ask to be indexed a few microtasks after they end: a turn later all have.
        await underWay?.settled(GATHER_MS);
        await nextTurn();
        const batch = waiting;
        waiting = [];
        for (const group of groupsOf(batch)) {
          // indexChanges never throws (a failure drops the document, for the start-up catch-up to redo).
          await indexChanges(
            ctx,
            group.flatMap((w) => w.changes),
          ).catch(() => undefined);
          for (const w of group) w.done();
        }
      }
    } finally {
      draining = false;
    }
  };

  return (changes) => {
    if (changes.length === 0) return Promise.resolve();
    return new Promise<void>((resolve) => {
      waiting.push({ changes, done: resolve });
      if (!draining) void drain();
    });
  };
}

/**
 * A batch starts on the event loop's next turn, not at once: the object transactions already waiting for the
 * database's connection commit first and join it. Without this the index transaction took the one SQLite
 * connection as soon as a write committed, so the others could never commit while it ran.
 */
const nextTurn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/** Consecutive writes that only create objects go together; any other write forms a group of its own. */
function groupsOf(batch: readonly Waiting[]): Waiting[][] {
  const groups: Waiting[][] = [];
  let creates: Waiting[] | undefined;
  for (const w of batch) {
    if (w.changes.every((change) => change.kind === "created")) {
      if (!creates) {
        creates = [];
        groups.push(creates);
      }
      creates.push(w);
    } else {
      creates = undefined;
      groups.push([w]);
    }
  }
  return groups;
}
