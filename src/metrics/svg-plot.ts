/**
 * A line plot as inline SVG (no script, no external file): a few series over a time window, the y axis from
 * zero to a round maximum. Labels go through the escaping `html` template; coordinates are numbers.
 */
import { type Html, html } from "../views/html.ts";

export interface PlotSeries {
  name: string;
  /** A CSS colour from the page's own palette (never from input). */
  color: string;
  points: readonly { at: number; value: number }[];
}

export interface PlotOptions {
  title: string;
  /** Formats a y-axis value, e.g. as bytes per second. */
  format: (value: number) => string;
  from: number;
  to: number;
  series: readonly PlotSeries[];
}

const WIDTH = 560;
const HEIGHT = 190;
const LEFT = 78;
const RIGHT = 12;
const TOP = 14;
const BOTTOM = 40;

export function linePlot(options: PlotOptions): Html {
  const { from, to, series, format } = options;
  const max = roundUp(Math.max(0, ...series.flatMap((s) => s.points.map((p) => p.value))));
  const plotWidth = WIDTH - LEFT - RIGHT;
  const plotHeight = HEIGHT - TOP - BOTTOM;
  const x = (at: number) => LEFT + ((at - from) / Math.max(1, to - from)) * plotWidth;
  const y = (value: number) => TOP + plotHeight - (value / max) * plotHeight;
  const fixed = (n: number) => n.toFixed(1);
  const span = (to - from) / 1000;
  const ago = (seconds: number) =>
    span >= 300 ? `-${Math.round(seconds / 60)} min` : `-${Math.round(seconds)} s`;
  const ticks = [0, 0.25, 0.5, 0.75, 1];
  const lines = series.map((s) => {
    const inWindow = s.points.filter((p) => p.at >= from && p.at <= to);
    const path = inWindow
      .map((p, i) => `${i === 0 ? "M" : "L"}${fixed(x(p.at))},${fixed(y(p.value))}`)
      .join(" ");
    return html`<path d="${path}" fill="none" stroke="${s.color}" stroke-width="2"></path>`;
  });
  const legend = series.map(
    (s, i) =>
      html`<rect x="${LEFT + i * 150}" y="${HEIGHT - 12}" width="12" height="4" fill="${s.color}"></rect><text x="${LEFT + 16 + i * 150}" y="${HEIGHT - 7}">${s.name}</text>`,
  );
  return html`<figure class="plot"><figcaption>${options.title}</figcaption><svg role="img" aria-label="${options.title}" viewBox="0 0 ${WIDTH} ${HEIGHT}" width="${WIDTH}" height="${HEIGHT}" font-size="11" font-family="system-ui,sans-serif">
${[0, 0.5, 1].map(
  (f) =>
    html`<line x1="${LEFT}" x2="${WIDTH - RIGHT}" y1="${fixed(y(max * f))}" y2="${fixed(y(max * f))}" stroke="#ddd"></line><text x="${LEFT - 6}" y="${fixed(y(max * f) + 4)}" text-anchor="end">${format(max * f)}</text>`,
)}
${ticks.map(
  (f) =>
    html`<text x="${fixed(LEFT + f * plotWidth)}" y="${TOP + plotHeight + 14}" text-anchor="middle">${f === 1 ? "now" : ago((1 - f) * span)}</text>`,
)}
${lines}${legend}</svg></figure>`;
}

/** 1, 2 or 5 times a power of ten, at least `value` (and at least 1). */
export function roundUp(value: number): number {
  if (!(value > 1)) return 1;
  const power = 10 ** Math.floor(Math.log10(value));
  for (const step of [1, 2, 5, 10]) if (step * power >= value) return step * power;
  return 10 * power;
}
