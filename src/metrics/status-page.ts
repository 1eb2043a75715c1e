/**
 * The operators' status page: one server-rendered HTML page with no script, the facts of the metrics at a
 * glance (requests, bytes, what is stored, the task queue, harvest lag, replicas, index lag, audits) and plots
 * of the last hour. Every value goes through the escaping `html` template.
 */

import type { NodeOutcomes } from "../context/outcomes.ts";
import type { AuditRun } from "../db/types.ts";
import { findingWord } from "../ops/audit.ts";
import type { DiskSpace } from "../ops/disk-space.ts";
import type { EngineStatus } from "../search/index.ts";
import { type Html, html } from "../views/html.ts";
import { diskFreeCard } from "./disk-card.ts";
import { formatBytes, formatCount, formatDuration } from "./format.ts";
import type { MethodTally } from "./node-metrics.ts";
import type { Sample } from "./samples.ts";
import { HOUR_MS } from "./samples.ts";
import { type CountsSnapshot, queueDepth } from "./snapshot.ts";
import { linePlot } from "./svg-plot.ts";

export interface StatusPageInput {
  nodeId: string;
  nodeName: string;
  role: "mn" | "cn";
  startedAt: Date;
  now: Date;
  totals: MethodTally;
  methods: ReadonlyMap<string, MethodTally>;
  counts: CountsSnapshot;
  outcomes: NodeOutcomes;
  /** The latest fixity audit of the stored bytes (any process's), from the database. */
  fixity: AuditRun | undefined;
  samples: readonly Sample[];
  search: EngineStatus;
  /** Free space of the filesystem the node writes to; undefined when it cannot be read. */
  disk?: DiskSpace | undefined;
}

const STYLE = `body{font:15px/1.45 system-ui,sans-serif;max-width:76rem;margin:1.5rem auto;padding:0 1rem;color:#222}
h1{font-size:1.5rem;margin:0}h2{font-size:1.1rem;border-bottom:1px solid #ddd;padding-bottom:.2rem;margin-top:1.8rem}
.sub{color:#555;margin:.2rem 0 1rem}.cards{display:grid;grid-template-columns:repeat(auto-fill,minmax(11rem,1fr));gap:.6rem;margin:0}
.cards div{border:1px solid #ddd;border-radius:.4rem;padding:.5rem .7rem}.cards dt{color:#555;font-size:.85rem}
.cards dd{margin:0;font-size:1.35rem;font-weight:600}.plots{display:flex;flex-wrap:wrap;gap:1rem}
figure.plot{margin:0;border:1px solid #ddd;border-radius:.4rem;padding:.4rem}figcaption{font-weight:600;margin:0 0 .2rem .3rem}
table{border-collapse:collapse;min-width:30rem}td,th{border:1px solid #ddd;padding:.25rem .5rem;text-align:right}
td:first-child,th:first-child{text-align:left}.none{color:#777}.bad{color:#b00020;font-weight:600}`;

const BLUE = "#1f6feb";
const ORANGE = "#d9730d";
const GREEN = "#2e7d32";

export function renderStatusPage(input: StatusPageInput): string {
  const { counts, totals, now } = input;
  const depth = [...queueDepth(counts.tasks).values()].reduce((a, b) => a + b, 0);
  const dead = counts.tasks.filter((t) => t.state === "dead").reduce((a, t) => a + t.count, 0);
  const card = (id: string, label: string, value: string, bad = false) =>
    html`<div><dt>${label}</dt><dd id="${id}" class="${bad ? "bad" : ""}">${value}</dd></div>`;
  const title = `Status of ${input.nodeName}`;
  const page = html`<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${title}</title><style>${STYLE}</style></head>
<body><header><h1>${title}</h1>
<p class="sub">${input.nodeId} · ${input.role === "cn" ? "Coordinating Node" : "Member Node"} · up ${formatDuration((now.getTime() - input.startedAt.getTime()) / 1000)} · counts read ${counts.takenAt.toISOString()}</p></header>
<dl class="cards">
${card("requests", "Requests served", formatCount(totals.requests))}
${card("failures", "Answered with an error", formatCount(totals.failures))}
${card("bytes-in", "Bytes received", formatBytes(totals.bytesIn))}
${card("bytes-out", "Bytes sent", formatBytes(totals.bytesOut))}
${card("objects", "Objects stored", formatCount(counts.stored.objects))}
${card("object-bytes", "Bytes stored (the objects' sizes)", formatBytes(counts.stored.bytes))}
${card("content-bytes", "On disk (equal bytes kept once)", formatBytes(counts.stored.contentBytes))}
${diskFreeCard(input.disk)}
${card("replica-objects", "Replicas held", `${formatCount(counts.stored.replicaObjects)} (${formatBytes(counts.stored.replicaBytes)})`)}
${card("open-uploads", "Unfinished uploads", `${formatCount(counts.uploads.uploads)} (${formatBytes(counts.uploads.bytes)} received)`)}
${card("queue-depth", "Tasks waiting or running", formatCount(depth))}
${card("dead-tasks", "Tasks failed for good", formatCount(dead), dead > 0)}
${card("index-lag", "Objects not yet indexed", formatCount(counts.unindexed), counts.unindexed > 0)}
${card("search-memory", "Search engine memory", searchMemory(input.search), input.search.mode !== "memory")}
${card("process-memory", "Process memory", processMemory(input.search))}
</dl>
<h2>The last hour</h2>${plots(input)}
<h2>Requests by API method</h2>${methodTable(input.methods)}
<h2>Task queue</h2>${taskTable(input)}
${input.role === "cn" ? html`<h2>Harvest of the Member Nodes</h2>${harvestTable(counts, now)}` : ""}
${input.role === "cn" ? html`<h2>Replicas</h2>${replicaTable(counts.replicaStates)}` : ""}
<h2>Audits</h2>${fixityAudit(input.fixity)}${auditTable(input.outcomes)}
</body></html>`;
  return page.toString();
}

/** The engine's memory against its budget, or why searches are answered by SQL alone. */
function searchMemory(status: EngineStatus): string {
  const budget = formatBytes(status.budget);
  if (status.mode === "sql") return `SQL alone: over the ${budget} budget`;
  if (status.mode === "untrusted") return "SQL alone: change feed not heard";
  if (status.mode === "loading") return "SQL alone: memory being read";
  return `${formatBytes(status.bytes)} of ${budget}`;
}

/** The whole process beside the engine's count of its own bytes: resident set, V8's heap used and taken. */
function processMemory(status: EngineStatus): string {
  return `RSS ${formatBytes(status.rss)} · V8 heap ${formatBytes(status.heapUsed)} of ${formatBytes(status.heapTotal)}`;
}

function plots(input: StatusPageInput): Html {
  // The last hour, or the time since the first sample on a node up for less.
  const to = input.now.getTime();
  const from = Math.max(to - HOUR_MS, input.samples[0]?.at.getTime() ?? to - HOUR_MS);
  const points = (pick: (s: Sample) => number | undefined) =>
    input.samples.flatMap((s) => {
      const value = pick(s);
      return value === undefined ? [] : [{ at: s.at.getTime(), value }];
    });
  const round = (n: number) => formatCount(Number(n.toPrecision(2)));
  const perSecond = (n: number) => `${round(n)}/s`;
  if (input.samples.length < 2) {
    return html`<p class="none" id="plots-pending">The plots appear once the node has taken two samples (one every few seconds).</p>`;
  }
  return html`<div class="plots">
${linePlot({ title: "Requests per second", format: perSecond, from, to, series: [{ name: "requests", color: BLUE, points: points((s) => s.requestsPerSecond) }] })}
${linePlot({
  title: "Bytes per second",
  format: (n) => `${formatBytes(n)}/s`,
  from,
  to,
  series: [
    { name: "received", color: GREEN, points: points((s) => s.bytesInPerSecond) },
    { name: "sent", color: ORANGE, points: points((s) => s.bytesOutPerSecond) },
  ],
})}
${linePlot({ title: "Task queue depth", format: round, from, to, series: [{ name: "waiting or running", color: BLUE, points: points((s) => s.queueDepth) }] })}
</div>`;
}

function methodTable(methods: ReadonlyMap<string, MethodTally>): Html {
  if (methods.size === 0) return html`<p class="none">No requests yet.</p>`;
  const rows = [...methods].sort((a, b) => b[1].requests - a[1].requests);
  return html`<table id="methods"><thead><tr><th>API method</th><th>Requests</th><th>Errors</th><th>Mean time</th><th>Received</th><th>Sent</th></tr></thead><tbody>
${rows.map(
  ([method, t]) =>
    html`<tr><td>${method}</td><td>${formatCount(t.requests)}</td><td class="${t.failures > 0 ? "bad" : ""}">${formatCount(t.failures)}</td><td>${`${((t.seconds / t.requests) * 1000).toFixed(1)} ms`}</td><td>${formatBytes(t.bytesIn)}</td><td>${formatBytes(t.bytesOut)}</td></tr>`,
)}</tbody></table>`;
}

function taskTable(input: StatusPageInput): Html {
  const kinds = new Map<string, { ready: number; scheduled: number; running: number; dead: number }>();
  const row = (kind: string) => {
    let found = kinds.get(kind);
    if (!found) {
      found = { ready: 0, scheduled: 0, running: 0, dead: 0 };
      kinds.set(kind, found);
    }
    return found;
  };
  for (const t of input.counts.tasks) row(t.kind)[t.state] += t.count;
  for (const kind of input.outcomes.taskFailures.keys()) row(kind);
  if (kinds.size === 0) return html`<p class="none">No tasks queued.</p>`;
  return html`<table id="tasks"><thead><tr><th>Kind</th><th>Waiting</th><th>Running</th><th>Scheduled later</th><th>Failed for good</th><th>Failed runs (this process)</th><th>Last error (this process)</th></tr></thead><tbody>
${[...kinds]
  .sort((a, b) => a[0].localeCompare(b[0]))
  .map(
    ([kind, n]) =>
      html`<tr><td>${kind}</td><td>${formatCount(n.ready)}</td><td>${formatCount(n.running)}</td><td>${formatCount(n.scheduled)}</td><td class="${n.dead > 0 ? "bad" : ""}">${formatCount(n.dead)}</td><td>${formatCount(input.outcomes.taskFailures.get(kind) ?? 0)}</td><td class="error">${input.outcomes.lastTaskError?.get(kind) ?? ""}</td></tr>`,
  )}</tbody></table>`;
}

function harvestTable(counts: CountsSnapshot, now: Date): Html {
  if (counts.harvest.length === 0) return html`<p class="none">No Member Node harvested yet.</p>`;
  return html`<table id="harvest"><thead><tr><th>Member Node</th><th>Synchronized up to</th><th>Lag</th><th>Last progress</th></tr></thead><tbody>
${counts.harvest.map(
  (h) =>
    html`<tr><td>${h.nodeId}</td><td>${h.harvestedTo?.toISOString() ?? "not yet"}</td><td>${h.harvestedTo ? formatDuration((now.getTime() - h.harvestedTo.getTime()) / 1000) : "–"}</td><td>${h.updatedAt.toISOString()}</td></tr>`,
)}</tbody></table>`;
}

function replicaTable(states: ReadonlyMap<string, number>): Html {
  if (states.size === 0) return html`<p class="none">No replica entries in the system metadata held.</p>`;
  return html`<table id="replicas"><thead><tr><th>Replication status</th><th>Replicas</th></tr></thead><tbody>
${[...states].map(([state, n]) => html`<tr><td>${state}</td><td class="${state === "failed" || state === "invalidated" ? "bad" : ""}">${formatCount(n)}</td></tr>`)}</tbody></table>`;
}

/** Findings listed on the page at most (the run keeps up to 100; `d1node audit --report` writes all). */
const FINDINGS_SHOWN = 20;

function fixityAudit(run: AuditRun | undefined): Html {
  if (!run) return html`<p class="none" id="fixity">No fixity audit of the stored bytes has run yet.</p>`;
  const bad = run.mismatches + run.missing > run.repaired;
  return html`<table id="fixity"><thead><tr><th>Fixity audit (latest run)</th><th>Finished</th><th>Objects</th><th>Bytes</th><th>Mismatched</th><th>Missing</th><th>Repaired</th></tr></thead><tbody>
<tr><td>${run.trigger}</td><td id="fixity-finished">${run.finishedAt.toISOString()}</td><td>${formatCount(run.objects)}</td><td>${formatBytes(run.bytes)}</td><td id="fixity-mismatched" class="${run.mismatches > 0 ? "bad" : ""}">${formatCount(run.mismatches)}</td><td id="fixity-missing" class="${run.missing > 0 ? "bad" : ""}">${formatCount(run.missing)}</td><td>${formatCount(run.repaired)}</td></tr></tbody></table>
${
  bad
    ? html`<ul id="fixity-findings">${run.findings.slice(0, FINDINGS_SHOWN).map((f) => html`<li class="${f.repaired ? "" : "bad"}">${findingWord(f.kind)} ${f.pid}: ${f.detail}${f.repaired ? " (repaired)" : ""}</li>`)}</ul>`
    : ""
}`;
}

function auditTable(outcomes: NodeOutcomes): Html {
  if (outcomes.audits.size === 0) return html``;
  return html`<table id="audits"><thead><tr><th>Audit</th><th>Valid</th><th>Invalid</th><th>Unreachable</th><th>Error</th><th>Latest check</th></tr></thead><tbody>
${[...outcomes.audits].map(
  ([kind, n]) =>
    html`<tr><td>${kind}</td><td>${formatCount(n.get("valid") ?? 0)}</td><td class="${(n.get("invalid") ?? 0) > 0 ? "bad" : ""}">${formatCount(n.get("invalid") ?? 0)}</td><td>${formatCount(n.get("unreachable") ?? 0)}</td><td>${formatCount(n.get("error") ?? 0)}</td><td>${outcomes.lastAudit.get(kind)?.toISOString() ?? ""}</td></tr>`,
)}</tbody></table>`;
}
