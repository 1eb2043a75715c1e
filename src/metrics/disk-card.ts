/** The status page's card of free disk space (src/ops/disk-space.ts), marked when the space is low. */
import { isLow } from "../ops/disk-space.ts";
import { type Html, html } from "../views/html.ts";
import { formatBytes } from "./format.ts";
import type { StatusPageInput } from "./status-page.ts";

export function diskFreeCard(disk: StatusPageInput["disk"]): Html {
  const value = disk ? `${formatBytes(disk.freeBytes)} of ${formatBytes(disk.totalBytes)}` : "cannot be read";
  const bad = !disk || isLow(disk);
  return html`<div><dt>Disk free for the store</dt><dd id="disk-free" class="${bad ? "bad" : ""}">${value}</dd></div>`;
}
