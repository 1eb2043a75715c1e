/**
 * What every service function receives: the node's configuration and its backends. Built once at start-up.
 */
import type { ReplicaAuthorizer } from "../auth/replica-authorization.ts";
import type { Config } from "../config/config.ts";
import type { Database, TaskStore } from "../db/types.ts";
import type { ChangeSubscribers } from "../objects/changes.ts";
import type { KeyedMutex } from "../objects/keyed-mutex.ts";
import type { SearchIndex } from "../search/index.ts";
import type { ObjectStore } from "../store/types.ts";
import type { TaskHandlers } from "../tasks/worker.ts";
import type { Clock } from "../types/clock.ts";
import type { NodeOutcomes } from "../types/outcomes.ts";
import type { FormatRegistry } from "./formats.ts";
import type { NodeLog } from "./logger.ts";

export interface NodeContext {
  config: Readonly<Config>;
  db: Database;
  /** The search engine's state (memory, cached answers) over `db`'s index. */
  search: SearchIndex;
  store: ObjectStore;
  formats: FormatRegistry;
  /** Serialises work on the same content key (commit vs. removal of shared bytes). */
  contentLocks: KeyedMutex;
  /** The durable background task queue (this node's database). */
  tasks: TaskStore;
  /** What runs each kind of task. */
  taskHandlers: TaskHandlers<NodeContext>;
  /** What follows a change to an object (src/node/subscribers.ts); the write core (src/objects/) calls it. */
  changes: ChangeSubscribers;
  /** The node's logger (the HTTP app's): background failures, such as a write's indexing, are logged here. */
  log: NodeLog;
  /** Audit results and task failures, counted for the metrics (src/context/outcomes.ts). */
  outcomes: NodeOutcomes;
  /**
   * Set when this process begins to shut down with a `shutdownGrace`: its ping fails, so that balancers send it
   * no new requests, while it still answers every other request.
   */
  draining?: boolean;
  /** Where time-based rules read the time (a harvest's window end); absent: the system clock. */
  clock?: Clock;
  /** Asks the CN whether a replica may go to a calling node (absent when the node runs standalone). */
  replicaAuthorizer?: ReplicaAuthorizer;
}

/** Who asks, from where: what the event log records. */
export interface CallInfo {
  session: import("../auth/session.ts").Session;
  ipAddress: string;
  userAgent: string;
}
