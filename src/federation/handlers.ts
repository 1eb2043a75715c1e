/** Every kind of background task a node runs, and its handler. */
import type { TaskHandlers } from "../tasks/worker.ts";
import { LOG_AGGREGATION, NODE_LOG, runLogAggregation, runNodeLog } from "./logs/tasks.ts";
import { REFRESH_SYSMETA, SYSMETA_CHANGED } from "./propagation/kinds.ts";
import { runRefreshSysmeta, runSysmetaChanged } from "./propagation/tasks.ts";
import { replicationTaskHandlers } from "./replication/tasks.ts";

export const taskHandlers: TaskHandlers = {
  [SYSMETA_CHANGED]: runSysmetaChanged,
  [REFRESH_SYSMETA]: runRefreshSysmeta,
  [LOG_AGGREGATION]: runLogAggregation,
  [NODE_LOG]: runNodeLog,
  ...replicationTaskHandlers,
};
