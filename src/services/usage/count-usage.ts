/**
 * The usage counter: reads the event log after its cursor, in id order and in batches, and adds each batch's
 * counts to `usage_counts` in one transaction with the cursor's move (src/db/usage/), so that every event is
 * counted once whatever stops the process. On a Coordinating Node the log holds its Member Nodes' entries too
 * (log aggregation), so the same pass counts the whole federation.
 *
 * Investigations are every counted read; requests the counted reads of data objects (formatType DATA: the
 * bytes of a dataset's files, what COUNTER's research data requests count).
 */
import { isNodeSubject } from "../../auth/cn-subjects.ts";
import type { Database, UsageEvent, UsageIncrement } from "../../db/types.ts";
import type { FormatRegistry } from "../../types/format-registry.ts";
import { counts, decide, hourOf, type ReadFilter, SESSION_MS } from "./counting-rules.ts";
import { monthAt } from "./months.ts";
import { counterRobots, type RobotList } from "./robots.ts";

/** Events read per batch (one transaction each). */
const BATCH_EVENTS = 5000;

export interface UsageCountingContext {
  db: Pick<Database, "usage" | "objects">;
  formats: FormatRegistry;
  config: { cnSubjects: readonly string[] };
}

export interface CountOptions {
  robots?: RobotList;
  batchEvents?: number;
  /** Stop once the cursor moved this far (event ids); the rest waits for the next pass. */
  maxEvents?: number;
  signal?: AbortSignal;
}

/** Counts the events logged since the last pass; returns how far the cursor moved (event ids). */
export async function countUsage(ctx: UsageCountingContext, options: CountOptions = {}): Promise<number> {
  const robots = options.robots ?? counterRobots();
  const cnSubjects = new Set(ctx.config.cnSubjects);
  const filter: ReadFilter = {
    isRobot: (userAgent) => robots.isRobot(userAgent),
    isNodeSubject: (subject) => isNodeSubject(subject) || cnSubjects.has(subject),
  };
  const batchEvents = options.batchEvents ?? BATCH_EVENTS;
  let from = await ctx.db.usage.counted();
  let upTo = await ctx.db.usage.countable();
  // PostgreSQL: the first call of a while only records what it saw; the second reaches it once settled.
  if (upTo <= from) upTo = await ctx.db.usage.countable();
  const start = from;
  const maxEvents = options.maxEvents ?? Number.POSITIVE_INFINITY;
  while (from < upTo && from - start < maxEvents && !options.signal?.aborted) {
    const events = await ctx.db.usage.eventsAfter(from, upTo, batchEvents);
    const to = events.length === batchEvents ? (events[events.length - 1] as UsageEvent).id : upTo;
    const increments = await incrementsOf(ctx, events, to, filter);
    if (!(await ctx.db.usage.add(increments, from, to))) break;
    from = to;
  }
  return from - start;
}

async function incrementsOf(
  ctx: UsageCountingContext,
  events: readonly UsageEvent[],
  upTo: number,
  filter: ReadFilter,
): Promise<UsageIncrement[]> {
  const reads = events.filter((event) => counts(event, filter));
  if (reads.length === 0) return [];
  const pids = [...new Set(reads.map((read) => read.pid))];
  const known: UsageEvent[] = [];
  // Both rules look no further than a read's own hour (its user-session): the log is read for the runs of
  // consecutive hours the batch touches, for the objects read in them (a harvested batch may span months).
  for (const run of hourRuns(reads)) {
    const found = await ctx.db.usage.readsOf(
      [...run.pids],
      run.from * SESSION_MS,
      (run.to + 1) * SESSION_MS,
      upTo,
    );
    for (const read of found) if (counts(read, filter)) known.push(read);
  }
  const decisions = decide(reads, known);
  const objects = await ctx.db.objects.getMany(pids);
  const isData = (pid: string) => {
    const formatId = objects.get(pid)?.sysmeta.formatId;
    return formatId !== undefined && ctx.formats.get(formatId)?.formatType === "DATA";
  };
  const byMonth = new Map<string, UsageIncrement>();
  for (const read of reads) {
    const decision = decisions.get(read.id);
    if (!decision || (!decision.total && !decision.unique)) continue;
    const month = monthAt(read.dateLogged);
    const key = `${read.pid}\u0000${month}`;
    let increment = byMonth.get(key);
    if (!increment) {
      increment = {
        pid: read.pid,
        month,
        totalInvestigations: 0,
        uniqueInvestigations: 0,
        totalRequests: 0,
        uniqueRequests: 0,
      };
      byMonth.set(key, increment);
    }
    const total = decision.total ? 1 : 0;
    const unique = decision.unique ? 1 : 0;
    increment.totalInvestigations += total;
    increment.uniqueInvestigations += unique;
    if (isData(read.pid)) {
      increment.totalRequests += total;
      increment.uniqueRequests += unique;
    }
  }
  return [...byMonth.values()];
}

/** The batch's hours as runs of consecutive hours, each with the objects read in it. */
function hourRuns(reads: readonly UsageEvent[]): { from: number; to: number; pids: Set<string> }[] {
  const byHour = new Map<number, Set<string>>();
  for (const read of reads) {
    const hour = hourOf(read.dateLogged);
    const pids = byHour.get(hour);
    if (pids) pids.add(read.pid);
    else byHour.set(hour, new Set([read.pid]));
  }
  const runs: { from: number; to: number; pids: Set<string> }[] = [];
  for (const hour of [...byHour.keys()].sort((a, b) => a - b)) {
    const last = runs[runs.length - 1];
    const pids = byHour.get(hour) as Set<string>;
    if (last && last.to === hour - 1) {
      last.to = hour;
      for (const pid of pids) last.pids.add(pid);
    } else runs.push({ from: hour, to: hour, pids: new Set(pids) });
  }
  return runs;
}
