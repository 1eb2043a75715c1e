/**
 * No file path is built from a client's, a source's or a peer's string. The layers that read requests and remote
 * documents (HTTP, the node context, services, the write core, federation, import, views, packages, types) build
 * no paths at all: they import neither node:path nor the file system, except the files that read a file an
 * operator named or one the node ships at a fixed place.
 * Paths are made by the stores (content keys checked against a SHA-256's shape) and the upload area (ids checked
 * against the node's own shape, test/e2e/uploads/upload-ids.test.ts), from the data folder an operator set.
 */
import assert from "node:assert/strict";
import { readdir, readFile } from "node:fs/promises";
import path from "node:path";
import { it } from "node:test";

const src = path.resolve(import.meta.dirname, "../../src");
const FACING = [
  "http",
  "context",
  "services",
  "objects",
  "federation",
  "import",
  "views",
  "packages",
  "types",
];
/**
 * Files of those layers that read a file an operator named (a formats list; an import's certificate files) or one
 * the node ships (COUNTER's robots list, at a path fixed in the code).
 */
const FILE_READERS = ["context/formats.ts", "import/source.ts", "services/usage/robots.ts"];

async function importsOf(folder: string): Promise<{ file: string; module: string }[]> {
  const entries = await readdir(path.join(src, folder), { recursive: true, withFileTypes: true });
  const found: { file: string; module: string }[] = [];
  for (const entry of entries) {
    if (!entry.isFile() || !entry.name.endsWith(".ts")) continue;
    const file = path.join(entry.parentPath, entry.name);
    const text = await readFile(file, "utf8");
    for (const match of text.matchAll(/^\s*import\b[^;]*?\bfrom\s+"(node:[^"]+)"/gms)) {
      found.push({ file: path.relative(src, file), module: match[1] as string });
    }
  }
  return found;
}

it("the layers facing requests, sources and peers build no file paths", async () => {
  const offenders: string[] = [];
  for (const folder of FACING) {
    for (const { file, module } of await importsOf(folder)) {
      if (module === "node:path") offenders.push(`${file} imports ${module}`);
      if (/^node:fs(\/promises)?$/.test(module) && !FILE_READERS.includes(file)) {
        offenders.push(`${file} imports ${module}`);
      }
    }
  }
  assert.deepEqual(offenders, []);
});
