/** What the write core needs of a node (the services' NodeContext is one). */
import type { Database } from "../db/types.ts";
import type { ObjectStore } from "../store/types.ts";
import type { ChangeSubscribers } from "./changes.ts";
import type { KeyedMutex } from "./keyed-mutex.ts";

export interface ObjectWriteContext {
  db: Database;
  store: ObjectStore;
  /** Serialises work on the same content key (commit vs. removal of shared bytes). */
  contentLocks: KeyedMutex;
  /** What follows a change (registered at the node's composition root). */
  changes: ChangeSubscribers;
}
