/** The federation's task handlers run with the node's context (the queue's handler type is generic over it). */
import type { NodeContext } from "../context/node-context.ts";
import type { TaskHandler, TaskHandlers } from "../tasks/worker.ts";

export type FederationTaskHandler = TaskHandler<NodeContext>;
export type FederationTaskHandlers = TaskHandlers<NodeContext>;
