/** Benchmark figures: one printed line each, all collected for bench/results/latest.json. */

export interface Figure {
  section: string;
  /** What was measured, e.g. "get 1 KiB, 50 connections (sqlite)". */
  name: string;
  value: number;
  unit: string;
  /** The baseline measured in the same run, when the target is a ratio to it. */
  baseline?: { name: string; value: number; unit: string };
  /** value / baseline.value (or the ratio the target speaks of). */
  ratio?: number;
  /** The target in words, e.g. ">= 10000 req/s and >= 0.30 of hello-world". */
  target?: string;
  /** Whether the target holds (undefined: informational). */
  pass?: boolean;
  /** Individual runs behind a median. */
  runs?: number[];
  notes?: string;
}

const figures: Figure[] = [];

export function record(figure: Figure): Figure {
  figures.push(figure);
  process.stdout.write(`${format(figure)}\n`);
  return figure;
}

export function allFigures(): readonly Figure[] {
  return figures;
}

export function format(f: Figure): string {
  const parts = [`[${f.section}] ${f.name}: ${num(f.value)} ${f.unit}`];
  if (f.baseline) parts.push(`baseline ${f.baseline.name} ${num(f.baseline.value)} ${f.baseline.unit}`);
  if (f.ratio !== undefined) parts.push(`ratio ${f.ratio.toFixed(2)}`);
  if (f.target) parts.push(`target ${f.target}`);
  if (f.pass !== undefined) parts.push(f.pass ? "PASS" : "MISS");
  if (f.runs && f.runs.length > 1) parts.push(`runs ${f.runs.map(num).join(", ")}`);
  return parts.join(" | ");
}

/** Numbers as people read them: integers above 100, three significant digits below. */
export function num(value: number): string {
  if (!Number.isFinite(value)) return String(value);
  if (Math.abs(value) >= 100) return Math.round(value).toLocaleString("en-US");
  return Number(value.toPrecision(3)).toString();
}
