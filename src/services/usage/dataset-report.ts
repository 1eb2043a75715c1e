/**
 * The COUNTER R5.1 Dataset Report (DSR) as JSON, in the shape of R5.1's COUNTER_SUSHI reports: `Report_Header`
 * (Release "5.1", Report_ID "DSR", the Begin_Date/End_Date filters) and `Report_Items`, one per dataset with
 * usage in the range, each with one `Attribute_Performance` whose `Performance` maps each Metric_Type
 * (Total/Unique_Dataset_Investigations, Total/Unique_Dataset_Requests) to its counts by month ("YYYY-MM";
 * months and metrics without usage are left out). A dataset is a metadata object with what it documents; its
 * id is the metadata object's PID.
 */

import type { NodeContext } from "../../context/node-context.ts";
import type { DatasetUsage, UsageMonth } from "../../db/types.ts";
import { doiOf } from "../../types/doi.ts";
import { lastDayOf, monthLabel, validMonth } from "./months.ts";

/** Datasets one report lists at most; past it the report says its data is partial (Exception 3040). */
export const MAX_REPORT_ITEMS = 10_000;

const METRICS = [
  ["Total_Dataset_Investigations", "totalInvestigations"],
  ["Unique_Dataset_Investigations", "uniqueInvestigations"],
  ["Total_Dataset_Requests", "totalRequests"],
  ["Unique_Dataset_Requests", "uniqueRequests"],
] as const;

/** A COUNTER_SUSHI exception (the report is not made); `status` the HTTP status it is answered with. */
export class ReportException extends Error {
  constructor(
    readonly code: number,
    message: string,
    readonly data: string,
    readonly status = 400,
  ) {
    super(message);
  }

  toJSON() {
    return { Code: this.code, Severity: "Error", Message: this.message, Data: this.data };
  }
}

export interface ReportRequest {
  fromMonth: number;
  toMonth: number;
  /** One dataset (its metadata PID) instead of all. */
  dataset?: string;
}

/** begin_date and end_date ("YYYY-MM" or "YYYY-MM-DD"; whole months), and the optional dataset. */
export function parseReportRequest(query: Record<string, unknown>): ReportRequest {
  const begin = monthParameter(query.begin_date, "begin_date");
  const end = monthParameter(query.end_date, "end_date");
  if (begin > end) throw new ReportException(3020, "Invalid Date Arguments", "end_date is before begin_date");
  const dataset = query.dataset;
  if (dataset !== undefined && (typeof dataset !== "string" || dataset === ""))
    throw new ReportException(3060, "Invalid ReportFilter Value", "dataset must be one PID");
  return { fromMonth: begin, toMonth: end, ...(typeof dataset === "string" ? { dataset } : {}) };
}

function monthParameter(value: unknown, name: string): number {
  if (value === undefined)
    throw new ReportException(1030, "Insufficient Information to Process Request", `${name} is required`);
  const match = typeof value === "string" ? /^(\d{4})-(\d{2})(?:-(\d{2}))?$/.exec(value) : null;
  const month = match ? validMonth(Number(match[1]), Number(match[2])) : undefined;
  if (month === undefined)
    throw new ReportException(3020, "Invalid Date Arguments", `${name} must be YYYY-MM or YYYY-MM-DD`);
  return month;
}

/** `visible`: which of these datasets the caller may read (only those are reported). */
/**
 * A report of every dataset reads every count of the range, so it is made for node administrators and CNs only
 * (`everyDatasetAllowed`); anyone may ask for one dataset.
 */
export async function datasetReport(
  ctx: Pick<NodeContext, "db" | "config" | "formats">,
  request: ReportRequest,
  visible: (pids: readonly string[]) => Promise<Set<string>>,
  everyDatasetAllowed: boolean,
  now = new Date(),
): Promise<unknown> {
  const { fromMonth, toMonth, dataset } = request;
  if (dataset === undefined && !everyDatasetAllowed) {
    throw new ReportException(
      2000,
      "Requestor Not Authorized to Access Service",
      "A report of every dataset is made for the node's administrators; ask for one with dataset=PID.",
      403,
    );
  }
  let items: DatasetUsage[];
  if (dataset !== undefined) {
    const months = await ctx.db.usage.datasetMonths(dataset, fromMonth, toMonth);
    items = months.length > 0 ? [{ dataset, months }] : [];
  } else {
    items = await ctx.db.usage.datasets(fromMonth, toMonth, undefined, MAX_REPORT_ITEMS + 1);
  }
  const readable = await visible(items.map((item) => item.dataset));
  items = items.filter((item) => readable.has(item.dataset));
  const partial = items.length > MAX_REPORT_ITEMS;
  const { nodeId, nodeName } = ctx.config;
  return {
    Report_Header: {
      Release: "5.1",
      Report_ID: "DSR",
      Report_Name: "Dataset Report",
      Created: now.toISOString().replace(/\.\d{3}Z$/, "Z"),
      Created_By: nodeName,
      // Usage by everyone, not one institution's (COUNTER's name for a global report).
      Institution_Name: "The World",
      Report_Attributes: { Attributes_To_Show: ["Access_Method"] },
      Report_Filters: {
        Begin_Date: `${monthLabel(fromMonth)}-01`,
        End_Date: `${monthLabel(toMonth)}-${String(lastDayOf(toMonth)).padStart(2, "0")}`,
        ...(dataset !== undefined ? { Item_ID: dataset } : {}),
      },
      ...(partial
        ? {
            Exceptions: [
              {
                Code: 3040,
                Severity: "Warning",
                Message: "Partial Data Returned",
                Data: `The first ${MAX_REPORT_ITEMS} datasets by identifier; ask for one with dataset=PID.`,
              },
            ],
          }
        : {}),
    },
    Report_Items: items.slice(0, MAX_REPORT_ITEMS).map((item) => {
      const doi = doiOf(item.dataset);
      return {
        Item: item.dataset,
        Item_ID: { Proprietary: `${nodeId}:${item.dataset}`, ...(doi ? { DOI: doi } : {}) },
        Publisher: nodeName,
        Platform: nodeId,
        Data_Type: "Dataset",
        Attribute_Performance: [
          { Data_Type: "Dataset", Access_Method: "Regular", Performance: performanceOf(item.months) },
        ],
      };
    }),
  };
}

function performanceOf(months: readonly UsageMonth[]): Record<string, Record<string, number>> {
  const performance: Record<string, Record<string, number>> = {};
  for (const [metric, key] of METRICS) {
    const byMonth: Record<string, number> = {};
    for (const m of months) if (m[key] > 0) byMonth[monthLabel(m.month)] = m[key];
    if (Object.keys(byMonth).length > 0) performance[metric] = byMonth;
  }
  return performance;
}
