/**
 * A node's metrics in Prometheus form (prom-client, one registry per node): requests by API method and status,
 * their latencies and bytes, counted as they are answered; what the node holds and owes (objects and bytes,
 * task queue, harvest lag per Member Node, replica states, index lag) read from the database at scrape time
 * through the snapshot cache; the search engine's memory (bytes, budget, mode) from `ctx.search`; replica audit results and task failures from src/context/outcomes.ts;
 * the latest fixity audit of the stored bytes from the database (`db.audit.latest()`); free disk space from
 * statfs (`disk-gauges.ts`).
 */
import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from "prom-client";
import type { NodeContext } from "../context/node-context.ts";
import { registerDiskGauges } from "./disk-gauges.ts";
import { SnapshotCache } from "./snapshot.ts";
import { registerUploadGauges } from "./upload-gauges.ts";

export interface AnsweredRequest {
  /** The route's API method ("MNRead.get"); "none" when no route matched. */
  method: string;
  status: number;
  seconds: number;
  bytesIn: number;
  bytesOut: number;
}

/** Requests served per API method since the node started (for the status page). */
export interface MethodTally {
  requests: number;
  /** Answers with status 400 or more. */
  failures: number;
  seconds: number;
  bytesIn: number;
  bytesOut: number;
}

/** One API method's counts: its status page tally and its answers by HTTP status. */
interface MethodCounts {
  tally: MethodTally;
  byStatus: Map<number, number>;
  /** Its latency histogram's labels, made once. */
  labels: { method: string };
}

const LATENCY_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60];

export class NodeMetrics {
  readonly registry = new Registry();
  readonly snapshot: SnapshotCache;
  readonly startedAt = new Date();
  /** Per API method, in the order first seen. */
  readonly methods = new Map<string, MethodTally>();
  readonly totals: MethodTally = { requests: 0, failures: 0, seconds: 0, bytesIn: 0, bytesOut: 0 };
  private readonly latency: Histogram<"method">;
  private readonly bound = new Map<string, MethodCounts>();

  constructor(readonly ctx: NodeContext) {
    const registers = [this.registry];
    this.snapshot = new SnapshotCache(ctx.db, ctx.config.role);
    collectDefaultMetrics({ register: this.registry });
    registerDiskGauges(this.registry, ctx.config);
    const snapshot = this.snapshot;
    new Gauge({
      name: "d1node_info",
      help: "The node: its identifier and role (always 1).",
      labelNames: ["node_id", "role"],
      registers,
    }).set({ node_id: ctx.config.nodeId, role: ctx.config.role }, 1);
    // The request counters are kept in plain tallies and handed over at scrape time: prom-client's label
    // hashing per observation is paid once per scrape instead of per request (docs/decisions.md, "Hot paths").
    const bound = this.bound;
    new Counter({
      name: "d1node_http_requests_total",
      help: "Requests answered, by API method and HTTP status.",
      labelNames: ["method", "status"],
      registers,
      collect() {
        this.reset();
        for (const [method, { byStatus }] of bound) {
          for (const [status, n] of byStatus) this.inc({ method, status: String(status) }, n);
        }
      },
    });
    this.latency = new Histogram({
      name: "d1node_http_request_duration_seconds",
      help: "Time from a request's arrival to the end of its answer, by API method.",
      labelNames: ["method"],
      buckets: LATENCY_BUCKETS,
      registers,
    });
    new Counter({
      name: "d1node_http_received_bytes_total",
      help: "Request body bytes received, by API method.",
      labelNames: ["method"],
      registers,
      collect() {
        this.reset();
        for (const [method, { tally }] of bound) if (tally.bytesIn > 0) this.inc({ method }, tally.bytesIn);
      },
    });
    new Counter({
      name: "d1node_http_sent_bytes_total",
      help: "Response bytes sent (headers and body), by API method.",
      labelNames: ["method"],
      registers,
      collect() {
        this.reset();
        for (const [method, { tally }] of bound) if (tally.bytesOut > 0) this.inc({ method }, tally.bytesOut);
      },
    });
    new Gauge({
      name: "d1node_objects",
      help: "Objects stored, as the node's own (or harvested) copies and as replicas.",
      labelNames: ["copy"],
      registers,
      async collect() {
        const { stored } = await snapshot.get();
        this.set({ copy: "own" }, stored.objects);
        this.set({ copy: "replica" }, stored.replicaObjects);
      },
    });
    new Gauge({
      name: "d1node_object_bytes",
      help: "Bytes of the objects stored (their system metadata sizes), own copies and replicas.",
      labelNames: ["copy"],
      registers,
      async collect() {
        const { stored } = await snapshot.get();
        this.set({ copy: "own" }, stored.bytes);
        this.set({ copy: "replica" }, stored.replicaBytes);
      },
    });
    new Gauge({
      name: "d1node_tasks",
      help: "Background tasks in the queue by kind and state: ready and running (the queue's depth), dead (failed for good).",
      labelNames: ["kind", "state"],
      registers,
      async collect() {
        const { tasks } = await snapshot.get();
        this.reset();
        for (const t of tasks) this.set({ kind: t.kind, state: t.state }, t.count);
      },
    });
    new Counter({
      name: "d1node_task_failures_total",
      help: "Failed runs of background tasks in this process, by kind (retried or kept dead).",
      labelNames: ["kind"],
      registers,
      collect() {
        this.reset();
        for (const [kind, n] of ctx.outcomes.taskFailures) this.inc({ kind }, n);
      },
    });
    new Gauge({
      name: "d1node_harvest_lag_seconds",
      help: "Coordinating Node: how far behind now each Member Node's objects are synchronized.",
      labelNames: ["node"],
      registers,
      async collect() {
        const { harvest, takenAt } = await snapshot.get();
        this.reset();
        for (const h of harvest) {
          if (h.harvestedTo)
            this.set({ node: h.nodeId }, (takenAt.getTime() - h.harvestedTo.getTime()) / 1000);
        }
      },
    });
    new Gauge({
      name: "d1node_replicas",
      help: "Replica entries in the system metadata held, by replicationStatus.",
      labelNames: ["state"],
      registers,
      async collect() {
        const { replicaStates } = await snapshot.get();
        this.reset();
        for (const [state, n] of replicaStates) this.set({ state }, n);
      },
    });
    if (ctx.config.role === "mn") registerUploadGauges(registers, snapshot);
    new Gauge({
      name: "d1node_index_lag_objects",
      help: "Objects stored but not yet in the search index.",
      registers,
      async collect() {
        this.set((await snapshot.get()).unindexed);
      },
    });
    new Gauge({
      name: "d1node_search_memory_bytes",
      help: "Bytes the search engine's memory holds (its structures, counted as V8 holds them), and its budget (searchMemoryBudget); the whole process beside it: process_resident_memory_bytes, nodejs_heap_size_used_bytes.",
      labelNames: ["kind"],
      registers,
      collect() {
        const status = ctx.search.status();
        this.set({ kind: "held" }, status.bytes);
        this.set({ kind: "budget" }, status.budget);
      },
    });
    new Gauge({
      name: "d1node_search_engine_mode",
      help: "What searches are answered from (1 for the current mode): memory, loading (SQL while the memory is read), sql (over budget), untrusted (SQL while the change feed cannot hear).",
      labelNames: ["mode"],
      registers,
      collect() {
        const { mode } = ctx.search.status();
        for (const each of ["memory", "loading", "sql", "untrusted"])
          this.set({ mode: each }, each === mode ? 1 : 0);
      },
    });
    new Counter({
      name: "d1node_search_memory_reads_total",
      help: "The search engine's structures read whole (reread) or brought up to date for changed documents (recheck).",
      labelNames: ["kind"],
      registers,
      collect() {
        const status = ctx.search.status();
        this.reset();
        this.inc({ kind: "reread" }, status.rereads);
        this.inc({ kind: "recheck" }, status.rechecks);
      },
    });
    new Counter({
      name: "d1node_audit_results_total",
      help: "Audit checks since the process started, by what was audited and what was found.",
      labelNames: ["kind", "outcome"],
      registers,
      collect() {
        this.reset();
        for (const [kind, outcomes] of ctx.outcomes.audits) {
          for (const [outcome, n] of outcomes) this.inc({ kind, outcome }, n);
        }
      },
    });
    new Gauge({
      name: "d1node_audit_last_timestamp_seconds",
      help: "When the latest audit check of each kind ran (Unix time).",
      labelNames: ["kind"],
      registers,
      collect() {
        this.reset();
        for (const [kind, at] of ctx.outcomes.lastAudit) this.set({ kind }, at.getTime() / 1000);
      },
    });
    // The fixity audit of the node's own bytes: its latest run, whoever ran it (`d1node audit`, the schedule,
    // `d1node restore`, another process), read from the database (table audit_runs) at scrape time.
    new Gauge({
      name: "d1node_audit_fixity_last_finished_timestamp_seconds",
      help: "When the latest fixity audit of the stored bytes finished (Unix time); absent until one has run.",
      registers,
      async collect() {
        this.reset();
        const run = await ctx.db.audit.latest();
        if (run) this.set(run.finishedAt.getTime() / 1000);
      },
    });
    new Gauge({
      name: "d1node_audit_fixity_last_objects",
      help: "The latest fixity audit's objects by result: audited, mismatched (bytes differ from the recorded digests), missing, repaired. Alert on mismatched + missing - repaired > 0.",
      labelNames: ["result"],
      registers,
      async collect() {
        this.reset();
        const run = await ctx.db.audit.latest();
        if (!run) return;
        this.set({ result: "audited" }, run.objects);
        this.set({ result: "mismatched" }, run.mismatches);
        this.set({ result: "missing" }, run.missing);
        this.set({ result: "repaired" }, run.repaired);
      },
    });
  }

  observe(answered: AnsweredRequest): void {
    const { method, status, seconds, bytesIn, bytesOut } = answered;
    const bound = this.boundTo(method);
    bound.byStatus.set(status, (bound.byStatus.get(status) ?? 0) + 1);
    this.latency.observe(bound.labels, seconds);
    count(bound.tally, status, seconds, bytesIn, bytesOut);
    count(this.totals, status, seconds, bytesIn, bytesOut);
  }

  private boundTo(method: string): MethodCounts {
    let bound = this.bound.get(method);
    if (!bound) {
      let tally = this.methods.get(method);
      if (!tally) {
        tally = { requests: 0, failures: 0, seconds: 0, bytesIn: 0, bytesOut: 0 };
        this.methods.set(method, tally);
      }
      bound = { tally, byStatus: new Map(), labels: { method } };
      this.bound.set(method, bound);
    }
    return bound;
  }

  /** The Prometheus text exposition of every metric. */
  async exposition(): Promise<{ contentType: string; text: string }> {
    return { contentType: this.registry.contentType, text: await this.registry.metrics() };
  }
}

function count(tally: MethodTally, status: number, seconds: number, bytesIn: number, bytesOut: number): void {
  tally.requests++;
  if (status >= 400) tally.failures++;
  tally.seconds += seconds;
  tally.bytesIn += bytesIn;
  tally.bytesOut += bytesOut;
}
