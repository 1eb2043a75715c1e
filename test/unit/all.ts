/**
 * The unit tier in one process (`npm run test:unit`): every test/unit/**\/*.test.ts imported here, so the
 * TypeScript loader and the shared modules start once instead of once per file. Unit tests are pure functions and
 * small in-process servers; anything needing a database or a node process lives in test/db, test/e2e,
 * test/federation.
 */
import { readdir } from "node:fs/promises";
import path from "node:path";
import { pathToFileURL } from "node:url";

const here = import.meta.dirname;
const files = (await readdir(here, { recursive: true })).filter((name) => name.endsWith(".test.ts")).sort();
for (const file of files) await import(pathToFileURL(path.join(here, file)).href);
