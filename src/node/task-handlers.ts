/** Every kind of background task a node runs, and its handler. */

import { PRUNE_SYNC_REQUESTS, runPruneSyncRequests } from "../federation/harvest/prune-requests.ts";
import { harvestTask, notifyCnTask, synchronizeTask } from "../federation/harvest/tasks.ts";
import { NODE_PING, pingNodes } from "../federation/health/ping.ts";
import { LOG_AGGREGATION, NODE_LOG, runLogAggregation, runNodeLog } from "../federation/logs/tasks.ts";
import { runRefreshSysmeta, runSysmetaChanged } from "../federation/propagation/tasks.ts";
import { replicationTaskHandlers } from "../federation/replication/tasks.ts";
import type { FederationTaskHandlers } from "../federation/task-handler.ts";
import { FIXITY_AUDIT, runFixityAudit } from "../ops/scheduled-audit.ts";
import { runDoiRegistration } from "../services/mn/doi-registration.ts";
import { runUsageCount, USAGE_COUNT } from "../services/usage/tasks.ts";
import {
  DOI_REGISTRATION,
  HARVEST_TASK,
  NOTIFY_CN_TASK,
  REFRESH_SYSMETA,
  SYNCHRONIZE_TASK,
  SYSMETA_CHANGED,
} from "../tasks/kinds.ts";

export const taskHandlers: FederationTaskHandlers = {
  [HARVEST_TASK]: harvestTask,
  [SYNCHRONIZE_TASK]: synchronizeTask,
  [NOTIFY_CN_TASK]: notifyCnTask,
  [PRUNE_SYNC_REQUESTS]: runPruneSyncRequests,
  [SYSMETA_CHANGED]: runSysmetaChanged,
  [REFRESH_SYSMETA]: runRefreshSysmeta,
  [LOG_AGGREGATION]: runLogAggregation,
  [NODE_LOG]: runNodeLog,
  [FIXITY_AUDIT]: runFixityAudit,
  [NODE_PING]: pingNodes,
  [DOI_REGISTRATION]: runDoiRegistration,
  [USAGE_COUNT]: runUsageCount,
  ...replicationTaskHandlers,
};
