/** Every kind of background task a node runs, and its handler. */
import type { TaskHandlers } from "../tasks/worker.ts";
import { replicationTaskHandlers } from "./replication/tasks.ts";

export const taskHandlers: TaskHandlers = {
  ...replicationTaskHandlers,
};
