/** Jobs run once a node is listening: they enqueue the first run of periodic work (harvests, audits). */
import { startFixityAudits } from "../ops/scheduled-audit.ts";
import type { NodeContext } from "../services/context.ts";
import { startPruningSyncRequests } from "./harvest/prune-requests.ts";
import { scheduleHarvests } from "./harvest/tasks.ts";
import { startNodePings } from "./health/ping.ts";
import { startLogAggregation } from "./logs/tasks.ts";
import { queueRecordedRefreshes } from "./propagation/tasks.ts";
import { startReplicationPasses } from "./replication/tasks.ts";

export const startupJobs: Array<(ctx: NodeContext) => Promise<void>> = [
  scheduleHarvests,
  startLogAggregation,
  queueRecordedRefreshes,
  startReplicationPasses,
  startPruningSyncRequests,
  startFixityAudits,
  startNodePings,
];
