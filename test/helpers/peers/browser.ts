/**
 * Headless Chromium for the page tests, and where their screenshots go: docs/images when
 * D1NODE_UPDATE_SCREENSHOTS is set (to refresh the docs' pictures), otherwise a temp folder removed afterwards.
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { type Browser, chromium } from "playwright-core";

const CHROMIUM = process.env.D1NODE_CHROMIUM ?? "/usr/bin/chromium";
// Without the background-networking flags Chromium tries outside connections a closed network refuses.
const FLAGS = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
];
const DOCS_IMAGES = fileURLToPath(new URL("../../../docs/images/", import.meta.url));

export function launchBrowser(): Promise<Browser> {
  return chromium.launch({ executablePath: CHROMIUM, args: FLAGS });
}

/** The folder screenshots are written to. */
export async function screenshotFolder(): Promise<string> {
  return process.env.D1NODE_UPDATE_SCREENSHOTS ? DOCS_IMAGES : mkdtemp(path.join(tmpdir(), "d1node-shots-"));
}

/** Removes a folder from `screenshotFolder` unless it is the docs' own. */
export async function removeScreenshotFolder(folder: string | undefined): Promise<void> {
  if (folder && folder !== DOCS_IMAGES) await rm(folder, { recursive: true, force: true });
}
