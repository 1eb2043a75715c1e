/**
 * What the soak counts: requests per client kind, honest-client errors, integrity and security errors, hostile
 * answers that miss what the spec asks for, and hostile answers by status. The first few problems (honest: five;
 * others: two of each kind) are printed in full as they happen; the result keeps three of each kind.
 */
import type { Answer } from "./http.ts";

export type ProblemClass = "honest" | "integrity" | "security" | "hostile";

export interface Problem {
  kind: string;
  what: string;
  detail: string;
}

/** Honest-client errors printed in full as they happen; of the other classes, the first of each kind. */
const PRINTED_HONEST = 5;
const PRINTED_PER_KIND = 2;
const KEPT_PER_CLASS = 60;
const KEPT_PER_KIND = 3;

export class Tally {
  readonly requests = new Map<string, number>();
  readonly problems: Record<ProblemClass, { count: number; first: Problem[] }> = {
    honest: { count: 0, first: [] },
    integrity: { count: 0, first: [] },
    security: { count: 0, first: [] },
    hostile: { count: 0, first: [] },
  };
  /** Problems per class and kind, e.g. "security hostile origin". */
  readonly problemKinds = new Map<string, number>();
  /** Problems by class, kind and what (the first 200 distinct), for the JSON result. */
  readonly distinctProblems = new Map<string, number>();
  /** Per hostile kind: answers by status ("401", "timeout", "ECONNRESET", ...). */
  readonly hostileStatuses = new Map<string, Map<string, number>>();
  /** Seconds the node kept each stalled upload open before closing it. */
  readonly stallSeconds: number[] = [];
  /** Stalled uploads the node had not closed well past the bound, closed by the soak. */
  stallsAbandoned = 0;
  /** Stalled uploads still open when the soak ended (shorter than the bound so far). */
  stallsOpenAtEnd = 0;
  /** Oversized bodies the node answered before the client had sent them whole. */
  refusedEarly = 0;

  count(kind: string, n = 1): void {
    this.requests.set(kind, (this.requests.get(kind) ?? 0) + n);
  }

  status(kind: string, answer: Pick<Answer, "status" | "failure">): void {
    const key = answer.status > 0 ? String(answer.status) : (answer.failure ?? "none");
    const byStatus = this.hostileStatuses.get(kind) ?? new Map<string, number>();
    this.hostileStatuses.set(kind, byStatus);
    byStatus.set(key, (byStatus.get(key) ?? 0) + 1);
  }

  problem(cls: ProblemClass, kind: string, what: string, detail: string): void {
    const entry = this.problems[cls];
    entry.count++;
    this.problemKinds.set(`${cls}: ${kind}`, (this.problemKinds.get(`${cls}: ${kind}`) ?? 0) + 1);
    const key = `${cls} | ${kind} | ${what}`;
    if (this.distinctProblems.has(key) || this.distinctProblems.size < 200) {
      this.distinctProblems.set(key, (this.distinctProblems.get(key) ?? 0) + 1);
    }
    const ofKind = entry.first.filter((p) => p.kind === kind).length;
    if (ofKind < KEPT_PER_KIND && entry.first.length < KEPT_PER_CLASS)
      entry.first.push({ kind, what, detail });
    const printed =
      cls === "honest"
        ? entry.count <= PRINTED_HONEST
        : (this.problemKinds.get(`${cls}: ${kind}`) ?? 0) <= PRINTED_PER_KIND;
    if (printed) {
      process.stdout.write(`  ${cls} error #${entry.count} (${kind}) ${what}\n    ${indent(detail)}\n`);
    }
  }

  total(prefix = ""): number {
    let sum = 0;
    for (const [kind, n] of this.requests) if (kind.startsWith(prefix)) sum += n;
    return sum;
  }
}

/** An answer in a few lines, for problem reports. */
export function describe(answer: Answer): string {
  if (answer.status === 0) return `no answer: ${answer.failure}`;
  const exception = answer.headers["dataone-exception-name"];
  return `HTTP ${answer.status}${exception ? ` (${exception})` : ""}: ${answer.body.slice(0, 1500)}`;
}

function indent(text: string): string {
  return text.replace(/\n/g, "\n    ");
}
