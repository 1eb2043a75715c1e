/**
 * The answer MetacatUI's metrics panel reads from `metricsUrl` (models/MetricsModel.js): it sends a
 * `metricsRequest` (JSON: `filterBy` with a filterType and its PIDs, and a "month" range "MM/DD/YYYY") as a
 * query parameter, or as the body of a POST, and parses `results.months`, `results.views`,
 * `results.downloads`, `results.citations` (one number per month) and, for a page of search results
 * (filterType "catalog"), `results.datasets` with one number per dataset in each list.
 *
 * Views are Unique_Dataset_Investigations and downloads Unique_Dataset_Requests (Make Data Count recommends
 * showing the unique counts); the node knows no citations, so each is 0. Other filter types (portal,
 * repository, user) are answered with empty lists.
 */
import type { Database, UsageMonth } from "../../db/types.ts";
import { InvalidRequest } from "../../errors/exceptions.ts";
import { monthAt, monthLabel, monthsBetween, validMonth } from "./months.ts";

/** PIDs one request may name (a page of search results is far fewer). */
export const MAX_METRICS_PIDS = 500;
/** MetacatUI asks from this month when it sets no start. */
const FIRST_MONTH = 201201;

export interface MetricsRequest {
  filterType: string;
  pids: string[];
  fromMonth: number;
  toMonth: number;
  /** The request as sent: MetacatUI keeps it as `metricRequest`. */
  raw: unknown;
}

export interface MetricsAnswer {
  metricsRequest: unknown;
  /**
   * MetacatUI reads `metrics_package_counts[pid]` for each row of a package's table whenever `resultDetails` is
   * set; the node keeps no per-row answer here, so the table shows no counts rather than failing.
   */
  resultDetails: { metrics_package_counts: Record<string, never> };
  results: {
    months: string[];
    views: number[];
    downloads: number[];
    citations: number[];
    datasets?: string[];
  };
}

/** The metricsRequest's text (JSON), checked. */
export function parseMetricsRequest(text: string | undefined, now = Date.now()): MetricsRequest {
  if (text === undefined || text.trim() === "")
    throw new InvalidRequest("The parameter metricsRequest is required.");
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    throw new InvalidRequest("metricsRequest must be JSON.");
  }
  const filters = (raw as { filterBy?: unknown } | null)?.filterBy;
  if (!Array.isArray(filters)) throw new InvalidRequest("metricsRequest.filterBy must be a list.");
  let filterType = "";
  let pids: string[] = [];
  let fromMonth = FIRST_MONTH;
  let toMonth = monthAt(now);
  for (const filter of filters as unknown[]) {
    const { filterType: type, values } = (filter ?? {}) as { filterType?: unknown; values?: unknown };
    if (typeof type !== "string") continue;
    const list = Array.isArray(values) ? values.filter((v): v is string => typeof v === "string") : [];
    if (type === "month") {
      if (list[0] !== undefined) fromMonth = monthOfDate(list[0]);
      if (list[1] !== undefined) toMonth = monthOfDate(list[1]);
    } else if (filterType === "" && type !== "query") {
      filterType = type;
      pids = [...new Set(list.filter((pid) => pid !== ""))];
    }
  }
  if (pids.length > MAX_METRICS_PIDS)
    throw new InvalidRequest(
      `metricsRequest names ${pids.length} PIDs; at most ${MAX_METRICS_PIDS} are answered.`,
    );
  if (fromMonth > toMonth) throw new InvalidRequest("metricsRequest's month range ends before it begins.");
  return { filterType, pids, fromMonth, toMonth, raw };
}

/** "MM/DD/YYYY" (MetacatUI's form) or "YYYY-MM[-DD]", as yyyymm. */
function monthOfDate(value: string): number {
  const us = /^(\d{1,2})\/\d{1,2}\/(\d{4})$/.exec(value.trim());
  const iso = /^(\d{4})-(\d{2})(?:-\d{2})?$/.exec(value.trim());
  const month = us
    ? validMonth(Number(us[2]), Number(us[1]))
    : iso
      ? validMonth(Number(iso[1]), Number(iso[2]))
      : undefined;
  if (month === undefined) throw new InvalidRequest(`metricsRequest: "${value}" is not a date (MM/DD/YYYY).`);
  return month;
}

/**
 * `visible`: which of these PIDs the caller may read; the others are answered as datasets without usage, so
 * that the answer tells nothing of objects the caller cannot see.
 */
export async function answerMetrics(
  db: Pick<Database, "usage">,
  request: MetricsRequest,
  visible: (pids: readonly string[]) => Promise<Set<string>>,
): Promise<MetricsAnswer> {
  const empty: MetricsAnswer["results"] = { months: [], views: [], downloads: [], citations: [] };
  const answer = (results: MetricsAnswer["results"]): MetricsAnswer => ({
    metricsRequest: request.raw,
    resultDetails: { metrics_package_counts: {} },
    results,
  });
  const { filterType, fromMonth, toMonth } = request;
  const readable = await visible(request.pids);
  if (filterType === "catalog") {
    const datasets: string[] = [];
    const views: number[] = [];
    const downloads: number[] = [];
    for (const pid of request.pids) {
      const months = readable.has(pid) ? await db.usage.datasetMonths(pid, fromMonth, toMonth) : [];
      datasets.push(pid);
      views.push(sum(months, "uniqueInvestigations"));
      downloads.push(sum(months, "uniqueRequests"));
    }
    return answer({ ...empty, datasets, views, downloads, citations: request.pids.map(() => 0) });
  }
  const pids = request.pids.filter((pid) => readable.has(pid));
  if (filterType !== "dataset" || pids.length === 0) return answer(empty);
  const byMonth = new Map<number, { views: number; downloads: number }>();
  for (const pid of pids) {
    for (const m of await db.usage.datasetMonths(pid, fromMonth, toMonth)) {
      const entry = byMonth.get(m.month) ?? { views: 0, downloads: 0 };
      entry.views += m.uniqueInvestigations;
      entry.downloads += m.uniqueRequests;
      byMonth.set(m.month, entry);
    }
  }
  if (byMonth.size === 0) return answer(empty);
  // From the first month with usage: MetacatUI drops leading months without any.
  const months = monthsBetween(Math.min(...byMonth.keys()), toMonth);
  return answer({
    months: months.map(monthLabel),
    views: months.map((m) => byMonth.get(m)?.views ?? 0),
    downloads: months.map((m) => byMonth.get(m)?.downloads ?? 0),
    citations: months.map(() => 0),
  });
}

function sum(months: readonly UsageMonth[], key: keyof Omit<UsageMonth, "month">): number {
  return months.reduce((total, m) => total + m[key], 0);
}
