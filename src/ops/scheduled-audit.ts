/**
 * The scheduled fixity audit: a `fixity-audit` task that audits every stored object (at most `auditRate` MiB/s),
 * records the run (the status page and the metrics read `db.audit.latest()`), and queues the next one
 * `auditInterval` seconds later. A node starts the cycle when it starts: the next run is due `auditInterval` after
 * the last one finished (or after the start, when none has).
 */
import type { NodeContext } from "../context/node-context.ts";
import type { Task } from "../tasks/worker.ts";
import { auditStoredObjects } from "./audit.ts";
import { repairFromReplicas } from "./repair.ts";

export const FIXITY_AUDIT = "fixity-audit";

export async function runFixityAudit(ctx: NodeContext, task: Task): Promise<void> {
  const { auditInterval, auditRate, auditRepair, cnBaseUrl } = ctx.config;
  if (auditInterval === 0) return;
  const run = await auditStoredObjects(ctx, {
    trigger: "scheduled",
    bytesPerSecond: auditRate > 0 ? auditRate * 1024 * 1024 : undefined,
    signal: task.signal,
    repair: auditRepair && cnBaseUrl ? repairFromReplicas(repairSources(ctx)) : undefined,
  });
  if (run.repaired > 0) {
    ctx.log.warn(
      { repaired: run.findings.filter((f) => f.repaired).map((f) => f.pid) },
      "fixity audit: bad stored bytes replaced with a verified copy from another node",
    );
  }
  if (run.mismatches + run.missing > run.repaired) {
    ctx.log.error(
      {
        mismatches: run.mismatches,
        missing: run.missing,
        repaired: run.repaired,
        findings: run.findings.slice(0, 10),
      },
      "fixity audit: stored bytes differ from what was recorded",
    );
  }
  await ctx.tasks.enqueue(FIXITY_AUDIT, "", {}, { runAt: new Date(Date.now() + auditInterval * 1000) });
}

/** The node's repair sources; each holder that could not help is logged. */
export function repairSources(ctx: NodeContext) {
  return {
    config: ctx.config,
    db: ctx.db,
    store: ctx.store,
    onSkip: (pid: string, nodeId: string, why: string) =>
      ctx.log.warn({ pid, nodeId, why }, "fixity audit: no good copy from this holder"),
  };
}

export async function startFixityAudits(ctx: NodeContext): Promise<void> {
  const { auditInterval } = ctx.config;
  if (auditInterval === 0) return;
  const latest = await ctx.db.audit.latest();
  const from = latest ? latest.finishedAt.getTime() : Date.now();
  await ctx.tasks.enqueue(
    FIXITY_AUDIT,
    "",
    {},
    { runAt: new Date(Math.max(Date.now(), from + auditInterval * 1000)) },
  );
}
