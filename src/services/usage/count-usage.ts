/**
 * The usage counter: reads the event log after its cursor, in id order and in batches, and adds each batch's
 * counts to `usage_counts` (per object) and `usage_dataset_counts` (per dataset: a metadata object and what it
 * documents in any resource map, as they are when the read is counted) in one transaction with the cursor's move (src/db/usage/), so that every event is
 * counted once whatever stops the process. On a Coordinating Node the log holds its Member Nodes' entries too
 * (log aggregation), so the same pass counts the whole federation.
 *
 * Investigations are every counted read; requests the counted reads of data objects (formatType DATA: the
 * bytes of a dataset's files, what COUNTER's research data requests count).
 */
import { isNodeSubject } from "../../auth/cn-subjects.ts";
import type { Database, DatasetIncrement, UsageCounts, UsageEvent, UsageIncrement } from "../../db/types.ts";
import type { FormatRegistry } from "../../types/format-registry.ts";
import { counts, decide, decideDatasets, hourOf, type ReadFilter, SESSION_MS } from "./counting-rules.ts";
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
    const batch = await incrementsOf(ctx, events, to, filter);
    if (!(await ctx.db.usage.add(batch.objects, batch.datasets, from, to))) break;
    from = to;
  }
  return from - start;
}

/** What one batch adds. */
interface BatchCounts {
  objects: UsageIncrement[];
  datasets: DatasetIncrement[];
}

/** A month's counts of one object or dataset, by key. */
class MonthlyCounts<T extends UsageCounts> {
  readonly byKey = new Map<string, T>();
  constructor(private readonly make: (id: string, month: number) => T) {}
  at(id: string, month: number): T {
    const key = `${id}\u0000${month}`;
    let entry = this.byKey.get(key);
    if (!entry) {
      entry = this.make(id, month);
      this.byKey.set(key, entry);
    }
    return entry;
  }
}

const ZERO: UsageCounts = {
  totalInvestigations: 0,
  uniqueInvestigations: 0,
  totalRequests: 0,
  uniqueRequests: 0,
};

async function incrementsOf(
  ctx: UsageCountingContext,
  events: readonly UsageEvent[],
  upTo: number,
  filter: ReadFilter,
): Promise<BatchCounts> {
  const reads = events.filter((event) => counts(event, filter));
  if (reads.length === 0) return { objects: [], datasets: [] };
  const pids = [...new Set(reads.map((read) => read.pid))];
  const objects = await ctx.db.objects.getMany(pids);
  const formatOf = new Map<string, string | undefined>(
    pids.map((pid) => [pid, objects.get(pid)?.sysmeta.formatId]),
  );
  const packages = await datasetsOfReads(ctx, pids, formatOf);
  const isData = (pid: string) => {
    const formatId = formatOf.get(pid);
    return formatId !== undefined && ctx.formats.get(formatId)?.formatType === "DATA";
  };
  const known: UsageEvent[] = [];
  // Both rules look no further than a read's own hour (its user-session): the log is read for the runs of
  // consecutive hours the batch touches, for the objects read in them and the other objects of their datasets
  // (a harvested batch may span months).
  for (const run of hourRuns(reads)) {
    const datasets = new Set([...run.pids].flatMap((pid) => packages.datasetsOf(pid)));
    for (const dataset of datasets) for (const member of packages.membersOf(dataset)) run.pids.add(member);
    const found = await ctx.db.usage.readsOf(
      [...run.pids],
      run.from * SESSION_MS,
      (run.to + 1) * SESSION_MS,
      upTo,
    );
    for (const read of found) if (counts(read, filter)) known.push(read);
  }
  const decisions = decide(reads, known);
  const datasetDecisions = decideDatasets(reads, known, packages.datasetsOf, isData);
  const byObject = new MonthlyCounts<UsageIncrement>((pid, month) => ({ pid, month, ...ZERO }));
  const byDataset = new MonthlyCounts<DatasetIncrement>((dataset, month) => ({ dataset, month, ...ZERO }));
  for (const read of reads) {
    const decision = decisions.get(read.id);
    if (!decision || (!decision.total && !decision.unique)) continue;
    const month = monthAt(read.dateLogged);
    const total = decision.total ? 1 : 0;
    const request = isData(read.pid);
    const increment = byObject.at(read.pid, month);
    increment.totalInvestigations += total;
    increment.uniqueInvestigations += decision.unique ? 1 : 0;
    if (request) {
      increment.totalRequests += total;
      increment.uniqueRequests += decision.unique ? 1 : 0;
    }
    const forDatasets = datasetDecisions.get(read.id);
    for (const dataset of packages.datasetsOf(read.pid)) {
      const entry = byDataset.at(dataset, month);
      entry.totalInvestigations += total;
      if (request) entry.totalRequests += total;
      if (forDatasets?.investigated.includes(dataset)) entry.uniqueInvestigations += 1;
      if (forDatasets?.requested.includes(dataset)) entry.uniqueRequests += 1;
    }
  }
  return { objects: [...byObject.byKey.values()], datasets: [...byDataset.byKey.values()] };
}

/** The datasets of the objects a batch read, and every object of those datasets with its format. */
interface Packages {
  /** An object's datasets: itself when it is metadata, and the metadata documenting it. */
  datasetsOf(pid: string): readonly string[];
  /** A dataset's objects, itself among them. */
  membersOf(dataset: string): readonly string[];
}

async function datasetsOfReads(
  ctx: UsageCountingContext,
  pids: readonly string[],
  formatOf: Map<string, string | undefined>,
): Promise<Packages> {
  const documentedBy = await ctx.db.usage.documentedBy(pids);
  const isMetadata = (pid: string) => {
    const formatId = formatOf.get(pid);
    return formatId !== undefined && ctx.formats.get(formatId)?.formatType === "METADATA";
  };
  const ofRead = new Map<string, string[]>();
  for (const pid of pids) {
    const datasets = new Set(documentedBy.get(pid) ?? []);
    if (isMetadata(pid)) datasets.add(pid);
    if (datasets.size > 0) ofRead.set(pid, [...datasets]);
  }
  const datasets = [...new Set([...ofRead.values()].flat())];
  const members = await ctx.db.usage.membersOf(datasets);
  // Every object of these datasets, the datasets themselves among them, to the datasets (of these) it is in.
  const ofMember = new Map<string, string[]>();
  const join = (pid: string, dataset: string) => {
    const list = ofMember.get(pid);
    if (!list) ofMember.set(pid, [dataset]);
    else if (!list.includes(dataset)) list.push(dataset);
  };
  for (const [pid, of] of ofRead) for (const dataset of of) join(pid, dataset);
  for (const dataset of datasets) {
    join(dataset, dataset);
    for (const member of members.get(dataset) ?? []) {
      join(member.pid, dataset);
      if (!formatOf.has(member.pid)) formatOf.set(member.pid, member.formatId);
    }
  }
  const membersOfDataset = new Map<string, string[]>(
    datasets.map((d) => [d, [d, ...(members.get(d) ?? []).map((m) => m.pid)]]),
  );
  return {
    datasetsOf: (pid) => ofMember.get(pid) ?? [],
    membersOf: (dataset) => membersOfDataset.get(dataset) ?? [],
  };
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
