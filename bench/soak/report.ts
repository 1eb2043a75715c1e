/** What the soak prints (a line a minute, a final table) and the JSON it leaves in bench/results/. */
import { mkdir, writeFile } from "node:fs/promises";
import type { MemoryFigures, Sample } from "./memory.ts";
import type { Tally } from "./tally.ts";

export interface Verdict {
  /** Why the soak failed (empty: it passed). */
  failures: string[];
  /** Whether the RSS trend was judged (the run lasted long enough for a trend to mean something). */
  trendJudged: boolean;
}

export function progressLine(
  minute: number,
  minutes: number,
  tally: Tally,
  sample: Sample | undefined,
  maxRss: number,
): string {
  const p = tally.problems;
  return (
    `[soak ${minute}/${minutes} min] honest ${tally.total("honest")} requests, ${p.honest.count} errors; ` +
    `hostile ${tally.total() - tally.total("honest")} requests, ${p.hostile.count} misses; ` +
    `integrity ${p.integrity.count}, security ${p.security.count}; ` +
    `RSS ${sample ? sample.rssMb.toFixed(0) : "?"} MB (max ${maxRss.toFixed(0)}), fds ${sample?.fds ?? "?"}`
  );
}

export function finalTable(
  tally: Tally,
  memory: MemoryFigures,
  verdict: Verdict,
  stallBound: number,
  trendBound: number,
): string {
  const lines: string[] = ["", "requests per client kind:"];
  for (const [kind, n] of [...tally.requests].sort()) lines.push(`  ${kind.padEnd(36)} ${n}`);
  lines.push("hostile answers by status:");
  for (const [kind, statuses] of [...tally.hostileStatuses].sort()) {
    const parts = [...statuses].sort().map(([status, n]) => `${status} x${n}`);
    lines.push(`  ${kind.padEnd(36)} ${parts.join(", ")}`);
  }
  const p = tally.problems;
  const stalls = tally.stallSeconds;
  lines.push(
    "problems:",
    `  honest-client errors                 ${p.honest.count}`,
    `  integrity errors                     ${p.integrity.count}`,
    `  security errors                      ${p.security.count}`,
    `  hostile answers missing the spec     ${p.hostile.count}`,
    ...[...tally.problemKinds].sort().map(([kind, n]) => `    ${kind.padEnd(34)} ${n}`),
    "hostile details:",
    `  oversized bodies refused before sent ${tally.refusedEarly}`,
    `  stalled uploads closed by the node   ${stalls.length}` +
      (stalls.length ? ` after ${Math.min(...stalls).toFixed(0)}-${Math.max(...stalls).toFixed(0)} s` : "") +
      ` (bound ${stallBound} s)`,
    `  stalled uploads the node kept open   ${tally.stallsAbandoned} past the bound (closed by the soak); ` +
      `${tally.stallsOpenAtEnd} under the bound at the end`,
    "node process:",
    `  RSS start / max / end                ${mb(memory.rssStartMb)} / ${mb(memory.rssMaxMb)} / ${mb(memory.rssEndMb)} MB`,
    `  RSS trend, second half               ${memory.rssTrendMbPer10Min.toFixed(1)} MB per 10 min ` +
      (verdict.trendJudged ? `(bound ${trendBound})` : "(not judged: the run is shorter than 10 minutes)"),
    `  open fds start / max / end           ${memory.fdsStart} / ${memory.fdsMax} / ${memory.fdsEnd}`,
    verdict.failures.length ? `FAIL: ${verdict.failures.join("; ")}` : "PASS",
  );
  return `${lines.join("\n")}\n`;
}

export async function writeResult(name: string, result: unknown): Promise<string> {
  const folder = new URL("../results/", import.meta.url);
  await mkdir(folder, { recursive: true });
  await writeFile(new URL(name, folder), `${JSON.stringify(result, null, 2)}\n`);
  return `bench/results/${name}`;
}

function mb(value: number): string {
  return value.toFixed(0);
}
