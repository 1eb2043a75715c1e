/** Every kind of background task a node runs, and its handler. */
import type { TaskHandlers } from "../tasks/worker.ts";
import { HARVEST_TASK, NOTIFY_CN_TASK, SYNCHRONIZE_TASK } from "./harvest/requests.ts";
import { harvestTask, notifyCnTask, synchronizeTask } from "./harvest/tasks.ts";

export const taskHandlers: TaskHandlers = {
  [HARVEST_TASK]: harvestTask,
  [SYNCHRONIZE_TASK]: synchronizeTask,
  [NOTIFY_CN_TASK]: notifyCnTask,
};
