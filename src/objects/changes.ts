/**
 * What the write core records of each change to an object, and the interface of those who act on it. The core
 * knows only this interface; the node's composition root (src/node/) registers what follows a change.
 */
import type { TransactionRepositories } from "../db/types.ts";
import type { StoredObject } from "../types/stored-object.ts";
import type { SystemMetadata } from "../types/sysmeta.ts";

/**
 * Who made the change. A Member Node tells its CN of its clients' changes only; what the CN made or told it, a
 * replica it pulled and what a harvest brought in need no notice.
 */
export type ChangeOrigin =
  /** A caller of this node's API (create, update, archive, updateSystemMetadata, the CN's own API writes). */
  | "client"
  /** The Coordinating Node: its call to this Member Node, or a refresh from its copy. */
  | "coordinating-node"
  /** Replication: a replica arriving on or leaving this Member Node, the CN's bookkeeping of replicas. */
  | "replication"
  /** The CN's harvest (synchronization) of a Member Node's object. */
  | "harvest"
  /** `d1node import`: a copy from another Member Node, kept as the source has it. */
  | "import"
  /** `d1node load`: synthetic objects an operator adds in bulk (written beside the core, src/db/objects/bulk-load.ts). */
  | "load";

export type ObjectChange =
  /**
   * A new object: its row as written, and its bytes when the write kept them in memory (a small document the
   * search index reads, held-bytes.ts), so that indexing need not read them back from the store.
   */
  | { kind: "created"; object: StoredObject; bytes?: Buffer; origin: ChangeOrigin; replan: boolean }
  /** New system metadata of an object held before. */
  | { kind: "sysmeta"; sysmeta: SystemMetadata; origin: ChangeOrigin; replan: boolean }
  /** The object's row is gone. */
  | { kind: "removed"; pid: string; origin: ChangeOrigin; replan: false };

/** Acting on changes: registered once where the node is put together (src/node/subscribers.ts). */
export interface ChangeSubscribers {
  /**
   * Inside the write's transaction, before it commits: the durable consequences (tasks enqueued on `tx.tasks`,
   * the outbox), so that the commit makes them durable together with the change, or neither.
   */
  recorded(tx: TransactionRepositories, changes: readonly ObjectChange[]): Promise<void>;
  /** After the commit, before the write returns (the search index: a caller reads its own write). Never throws. */
  committed(changes: readonly ObjectChange[]): Promise<void>;
  /**
   * A write with staged bytes is under way and will soon commit; the function returned is called once its
   * transaction has ended, committed or not (before `committed`). Lets the index gather concurrent writes.
   */
  starting?(): () => void;
  /**
   * How many of a new object's bytes the subscribers want kept from its write for `committed` (the search index
   * extracts a metadata document from them instead of reading the store again), by its formatId (undefined: not
   * known yet as the bytes arrive). None when absent.
   */
  bytesToHold?(formatId: string | undefined): number;
}

/** The bytes of a new object its write keeps for the subscribers (`ChangeSubscribers.bytesToHold`). */
export function bytesWanted(subscribers: ChangeSubscribers, formatId: string | undefined): number {
  return subscribers.bytesToHold?.(formatId) ?? 0;
}

/** The PID a change is about. */
export const changedPid = (change: ObjectChange): string =>
  change.kind === "created"
    ? change.object.sysmeta.identifier
    : change.kind === "sysmeta"
      ? change.sysmeta.identifier
      : change.pid;
