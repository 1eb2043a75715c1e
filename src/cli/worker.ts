/**
 * `d1node worker`: a process that runs the node's queued background tasks (harvests, replication, change
 * notices) and serves no requests. With PostgreSQL, start as many as wanted next to the serving node, with the
 * same configuration: each task is leased to one of them at a time.
 */
import type { Command } from "commander";
import { createNodeLogger } from "../context/logger.ts";
import { recordTaskFailure } from "../context/outcomes.ts";
import { startMetricsListener } from "../metrics/metrics-listener.ts";
import { NodeMetrics } from "../metrics/node-metrics.ts";
import { openNodeContext } from "../node/open-context.ts";
import { TASK_LIMITS } from "../tasks/kinds.ts";
import { startWorker, type Task } from "../tasks/worker.ts";
import { addCommonOptions, type CommonFlags, configFromFlags } from "./options.ts";

interface WorkerFlags extends CommonFlags {
  role?: string;
  concurrency: string;
  leaseSeconds: string;
  verbose?: boolean;
  metricsPort?: string;
  metricsHost?: string;
}

export function registerWorkerCommand(program: Command): void {
  addCommonOptions(
    program.command("worker").description("run the node's background tasks, serving no requests"),
  )
    .option("--role <role>", "mn or cn, as the node's own (env: D1NODE_ROLE)")
    .option("--concurrency <n>", "tasks run at once", "4")
    .option(
      "--lease-seconds <n>",
      "how long a claimed task is this worker's alone; kept while it runs, it lapses that long after the worker died, and another worker takes the task",
      "60",
    )
    .option("--verbose", "print each task as it finishes")
    .option(
      "--metrics-port <port>",
      "this worker's scrape target, GET /metrics on this port: its task failures and audits, the queue (env: D1NODE_METRICS_PORT)",
    )
    .option("--metrics-host <address>", "the address --metrics-port listens on (default 127.0.0.1)")
    .action(async (flags: WorkerFlags) => {
      const config = configFromFlags(flags as WorkerFlags & Record<string, unknown>, {
        ...(flags.role ? { role: flags.role } : {}),
        ...(flags.metricsPort !== undefined ? { metricsPort: flags.metricsPort } : {}),
        ...(flags.metricsHost !== undefined ? { metricsHost: flags.metricsHost } : {}),
      });
      const concurrency = Number(flags.concurrency);
      if (!Number.isInteger(concurrency) || concurrency < 1)
        throw new Error("--concurrency: a positive number");
      const leaseSeconds = Number(flags.leaseSeconds);
      if (!Number.isFinite(leaseSeconds) || leaseSeconds <= 0)
        throw new Error("--lease-seconds: a positive number");
      // Its standard output lists the tasks run; the node's log (index failures, ...) goes to standard error.
      const { ctx, close } = await openNodeContext(
        { ...config },
        createNodeLogger(config.logLevel, 2, config.logFormat),
      );
      const worker = startWorker(ctx, ctx.tasks, ctx.taskHandlers, {
        concurrency,
        limits: TASK_LIMITS,
        leaseMs: leaseSeconds * 1000,
        ...(flags.verbose
          ? {
              onDone: (task: Task, ms: number) =>
                process.stdout.write(
                  `task ${task.kind} ${task.key} (run ${task.attempts}) done in ${ms} ms\n`,
                ),
            }
          : {}),
        onError: (task, error) => {
          recordTaskFailure(ctx, task.kind, error);
          const message = error instanceof Error ? error.message : String(error);
          process.stderr.write(`task ${task.kind} ${task.key} (run ${task.attempts}) failed: ${message}\n`);
        },
      });
      // Its own scrape target: a worker serves no API, so nothing else shows what it ran and found.
      const metrics =
        config.metricsPort === undefined
          ? undefined
          : await startMetricsListener(new NodeMetrics(ctx), config.metricsHost, config.metricsPort);
      process.stdout.write(`d1node worker for ${config.nodeId} running\n`);
      if (metrics) process.stdout.write(`metrics of this process at ${metrics.url}\n`);
      const stop = async () => {
        await worker.stop();
        await metrics?.close();
        await close();
        process.exit(0);
      };
      process.once("SIGINT", stop);
      process.once("SIGTERM", stop);
    });
}
