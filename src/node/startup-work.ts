/** Jobs run once a node is listening: they enqueue the first run of periodic work (harvests, audits). */

import type { NodeContext } from "../context/node-context.ts";
import { startPruningSyncRequests } from "../federation/harvest/prune-requests.ts";
import { scheduleHarvests } from "../federation/harvest/tasks.ts";
import { startNodePings } from "../federation/health/ping.ts";
import { startLogAggregation } from "../federation/logs/tasks.ts";
import { queueRecordedRefreshes } from "../federation/propagation/tasks.ts";
import { startReplicationPasses } from "../federation/replication/tasks.ts";
import { startFixityAudits } from "../ops/scheduled-audit.ts";
import { startUsageCounting } from "../services/usage/tasks.ts";

export const startupJobs: Array<(ctx: NodeContext) => Promise<void>> = [
  scheduleHarvests,
  startLogAggregation,
  queueRecordedRefreshes,
  startReplicationPasses,
  startPruningSyncRequests,
  startFixityAudits,
  startNodePings,
  startUsageCounting,
];
