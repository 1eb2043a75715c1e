/**
 * Start-up figures of the scale section: the first answered page after a start on the loaded data against the
 * same on an empty database, RSS, and the background warm-up of the list positions (`list positions warmed in
 * N s`, logged at info), after which first jumps into the lists are timed again.
 */
import os from "node:os";
import { KeepAliveClient } from "../clients.ts";
import { type Backend, type BenchNode, startNode } from "../node.ts";
import { rssOf } from "../processes.ts";
import { record } from "../report.ts";

const PAGE = 1000;
const WARMED = /list positions warmed in ([\d.]+) s/;

export interface Started {
  node: BenchNode;
  seconds: number;
  rssMiB: number;
}

/** Starts a node and times it from the process start to its first answered listObjects page. */
export async function firstAnswer(dataDir: string, db: Backend): Promise<Started> {
  const started = performance.now();
  const node = await startNode(dataDir, db, {}, "info");
  const client = new KeepAliveClient(node.token);
  try {
    await client.ok(`${node.baseUrl}/v2/object?start=0&count=${PAGE}`);
  } finally {
    client.close();
  }
  return { node, seconds: (performance.now() - started) / 1000, rssMiB: rssOf(node.pid) / 2 ** 20 };
}

/** The start-up figure: `loaded` against a node on `empty` (its second start: the first creates the schema). */
export async function recordStartUp(label: string, loaded: Started, emptyDir: string, empty: Backend) {
  await (await firstAnswer(emptyDir, empty)).node.stop();
  const baseline = await firstAnswer(emptyDir, empty);
  await baseline.node.stop();
  record({
    section: "scale",
    name: `start-up on ${label}: process start to first listObjects page`,
    value: loaded.seconds,
    unit: "s",
    baseline: { name: "the same on an empty database", value: baseline.seconds, unit: "s" },
    ratio: loaded.seconds / baseline.seconds,
    target: "<= 5 s",
    pass: loaded.seconds <= 5,
    notes: `RSS then ${loaded.rssMiB.toFixed(0)} MiB (empty: ${baseline.rssMiB.toFixed(0)} MiB); ${loadAverage()}`,
  });
}

/** Waits for the node's warm-up line; resolves to the seconds it reports. */
export async function warmedUp(node: BenchNode): Promise<number> {
  for (;;) {
    const match = WARMED.exec(node.printed());
    if (match) return Number(match[1]);
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
}

/** First jumps of a process into a list (middle and end), timed; `pageUrl(start)` is a page of PAGE. */
export async function timeJumps(
  label: string,
  token: string | undefined,
  pageUrl: (start: number) => string,
  total: number,
) {
  const client = new KeepAliveClient(token);
  try {
    const middle = Math.floor(total / 2 / PAGE) * PAGE;
    const last = Math.max(0, total - PAGE);
    const toMiddle = (await client.ok(pageUrl(middle))).ms;
    const toEnd = (await client.ok(pageUrl(last))).ms;
    record({
      section: "scale",
      name: `${label}: first jumps after the warm-up, to start=${middle} / ${last}`,
      value: toMiddle,
      unit: "ms (middle)",
      notes: `to the end: ${toEnd.toFixed(0)} ms; ${loadAverage()}`,
    });
  } finally {
    client.close();
  }
}

export function loadAverage(): string {
  return `load average ${os
    .loadavg()
    .map((v) => v.toFixed(1))
    .join(" / ")}`;
}
