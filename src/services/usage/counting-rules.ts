/**
 * COUNTER R5.1's rules for one batch of the event log, as pure functions (no database): which reads count, the
 * user-session a read belongs to, and whether it counts in the totals (the double-click rule) and in the unique
 * counts (once per user-session).
 *
 * - A read counts unless its user agent is on COUNTER's robots list or its subject is a node's (replication,
 *   synchronization and the other node-to-node reads; "replicate" events are never reads).
 * - User-session (7.3): "the user id if known, else IP address and user agent", within one hour: the key is the
 *   subject of an authenticated caller, else the IP and user agent, and the hour (UTC) of the read.
 * - Double click (7.2): reads of the same item by the same user-session (so within its hour) within 30 seconds
 *   count once.
 * - Unique: an item counts once per user-session; so does a dataset, whichever of its objects (metadata, files)
 *   the session read: "Unique_Dataset_Investigations ... Unique_Dataset_Requests" count a dataset once per
 *   user-session (Code of Practice for Research Data, as R5.1's unique titles, 7.4). Totals are the sums of
 *   their items' (the double click is per item).
 *
 * Both rules look only at reads counted before (a lower event id), so a batch boundary or an entry harvested
 * late, dated before entries already counted, changes no count: a read counts in the totals when no earlier-id
 * read of its item by its session lies within 30 s of it in its hour, and in the unique counts when no earlier-id read of
 * its item by its session lies in its hour; in a dataset's unique counts when no earlier-id read of any of its
 * objects (of its data objects, for requests) by its session lies in its hour.
 */
import type { UsageEvent } from "../../db/types.ts";

export const DOUBLE_CLICK_MS = 30_000;
export const SESSION_MS = 3_600_000;

/** The anonymous caller's subject (DataONE's "public"). */
const ANONYMOUS = "public";

export interface ReadFilter {
  isRobot(userAgent: string): boolean;
  isNodeSubject(subject: string): boolean;
}

/** A read that COUNTER counts. */
export function counts(event: UsageEvent, filter: ReadFilter): boolean {
  return event.event === "read" && !filter.isRobot(event.userAgent) && !filter.isNodeSubject(event.subject);
}

/** The user-session's identity, without its hour. */
export function sessionOf(event: UsageEvent): string {
  return event.subject !== ANONYMOUS && event.subject !== ""
    ? `s\u0000${event.subject}`
    : `a\u0000${event.ip}\u0000${event.userAgent}`;
}

export const hourOf = (ms: number) => Math.floor(ms / SESSION_MS);

export interface Decision {
  /** Counts in the totals (not a double click). */
  total: boolean;
  /** The first read of its item by its user-session. */
  unique: boolean;
}

/**
 * Decides each of `batch` (counted reads) against `known`: every counted read of the batch's items by id up to the
 * batch's last, dated within the hours the batch touches, the batch's own reads among them.
 */
export function decide(batch: readonly UsageEvent[], known: readonly UsageEvent[]): Map<number, Decision> {
  const groups = new Map<string, UsageEvent[]>();
  for (const read of known) {
    const key = `${read.pid}\u0000${sessionOf(read)}`;
    const group = groups.get(key);
    if (group) group.push(read);
    else groups.set(key, [read]);
  }
  for (const group of groups.values()) group.sort((a, b) => a.dateLogged - b.dateLogged || a.id - b.id);
  const firstInHour = new Map<string, number>();
  for (const [key, group] of groups) {
    for (const read of group) {
      const hourKey = `${key}\u0000${hourOf(read.dateLogged)}`;
      const first = firstInHour.get(hourKey);
      if (first === undefined || read.id < first) firstInHour.set(hourKey, read.id);
    }
  }
  const decisions = new Map<number, Decision>();
  for (const read of batch) {
    const key = `${read.pid}\u0000${sessionOf(read)}`;
    const group = groups.get(key) ?? [read];
    const unique = (firstInHour.get(`${key}\u0000${hourOf(read.dateLogged)}`) ?? read.id) === read.id;
    decisions.set(read.id, { total: !clickedBefore(group, read), unique });
  }
  return decisions;
}

/** Whether a read with a lower id lies within 30 s of `read`, in its hour, in its date-sorted group. */
function clickedBefore(group: readonly UsageEvent[], read: UsageEvent): boolean {
  const hour = hourOf(read.dateLogged);
  let low = 0;
  let high = group.length;
  const from = read.dateLogged - DOUBLE_CLICK_MS;
  while (low < high) {
    const mid = (low + high) >> 1;
    if ((group[mid] as UsageEvent).dateLogged < from) low = mid + 1;
    else high = mid;
  }
  for (let i = low; i < group.length; i++) {
    const other = group[i] as UsageEvent;
    if (other.dateLogged > read.dateLogged + DOUBLE_CLICK_MS) break;
    if (other.id < read.id && hourOf(other.dateLogged) === hour) return true;
  }
  return false;
}

/** The datasets a read counts once for (the first read of any of their objects by its user-session). */
export interface DatasetDecision {
  investigated: string[];
  requested: string[];
}

/**
 * Decides each of `batch` against `known` for the datasets of its object: `known` must hold every counted read,
 * by id up to the batch's last and dated within the hours the batch touches, of every object of those datasets.
 * `datasetsOf` gives an object's datasets, `isRequest` whether its reads are requests.
 */
export function decideDatasets(
  batch: readonly UsageEvent[],
  known: readonly UsageEvent[],
  datasetsOf: (pid: string) => readonly string[],
  isRequest: (pid: string) => boolean,
): Map<number, DatasetDecision> {
  const firstRead = new Map<string, number>();
  const firstRequest = new Map<string, number>();
  const keep = (firsts: Map<string, number>, key: string, id: number) => {
    const first = firsts.get(key);
    if (first === undefined || id < first) firsts.set(key, id);
  };
  const keyOf = (dataset: string, read: UsageEvent) =>
    `${dataset}\u0000${sessionOf(read)}\u0000${hourOf(read.dateLogged)}`;
  for (const read of [...known, ...batch]) {
    for (const dataset of datasetsOf(read.pid)) {
      keep(firstRead, keyOf(dataset, read), read.id);
      if (isRequest(read.pid)) keep(firstRequest, keyOf(dataset, read), read.id);
    }
  }
  const decisions = new Map<number, DatasetDecision>();
  for (const read of batch) {
    const datasets = datasetsOf(read.pid);
    if (datasets.length === 0) continue;
    decisions.set(read.id, {
      investigated: datasets.filter((d) => firstRead.get(keyOf(d, read)) === read.id),
      requested: isRequest(read.pid)
        ? datasets.filter((d) => firstRequest.get(keyOf(d, read)) === read.id)
        : [],
    });
  }
  return decisions;
}
