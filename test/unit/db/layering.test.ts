/**
 * The data layer's seams: SQL and the query builder stay in src/db/ and the search index's own store
 * (src/search/store/), which src/db never imports; engine state belongs to an object opened with
 * the node (the search index: ctx.search), not to a module-level map keyed by the database; migrations are frozen
 * snapshots in one folder, registered in order under the names existing databases recorded.
 */
import assert from "node:assert/strict";
import { readdir, readFile } from "node:fs/promises";
import path from "node:path";
import { it } from "node:test";
import { MIGRATIONS } from "../../../src/db/migrations/index.ts";

const root = path.resolve(import.meta.dirname, "../../..");
const src = path.join(root, "src");
const migrationsDir = path.join(src, "db", "migrations");

/** Names recorded in d1node_migrations by databases that exist: never renamed, never reordered. */
const RECORDED = [
  "0001-objects-events",
  "0002-access-rows",
  "0003-cn",
  "0004-search-index",
  "0005-tasks",
  "0006-harvest",
  "0007-replication",
  "0008-propagation-logs",
  "0009-search-speed",
  "0010-identifiers",
];

async function sourceFiles(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true });
  return entries
    .filter((e) => e.isFile() && e.name.endsWith(".ts"))
    .map((e) => path.join(e.parentPath, e.name))
    .sort();
}

const importsOf = (text: string) =>
  [...text.matchAll(/^\s*(?:import|export)\b[^;]*?\bfrom\s+"([^"]+)"/gms)].map((m) => m[1] as string);

it("no file outside src/db/ and src/search/store/ imports Kysely", async () => {
  const offenders: string[] = [];
  for (const file of await sourceFiles(src)) {
    const relative = path.relative(root, file).split(path.sep).join("/");
    if (relative.startsWith("src/db/") || relative.startsWith("src/search/store/")) continue;
    if (
      importsOf(await readFile(file, "utf8")).some((from) => from === "kysely" || from.startsWith("kysely/"))
    ) {
      offenders.push(relative);
    }
  }
  assert.deepEqual(offenders, [], "SQL belongs in a repository of src/db/ (or the search index's store)");
});

it("no file of src/db imports src/search: the search module sits on the database, never under it", async () => {
  const offenders: string[] = [];
  for (const file of await sourceFiles(path.join(src, "db"))) {
    for (const from of importsOf(await readFile(file, "utf8"))) {
      if (!from.startsWith(".")) continue;
      const target = path.relative(src, path.resolve(path.dirname(file), from)).split(path.sep);
      if (target[0] === "search") offenders.push(`${path.relative(root, file)} imports ${from}`);
    }
  }
  assert.deepEqual(offenders, []);
});

it("migrations import nothing but Kysely and their own folder", async () => {
  const offenders: string[] = [];
  for (const file of await sourceFiles(migrationsDir)) {
    for (const from of importsOf(await readFile(file, "utf8"))) {
      const local = from.startsWith("./") && !from.slice(2).includes("/");
      if (from !== "kysely" && !local) offenders.push(`${path.basename(file)} imports ${from}`);
    }
  }
  assert.deepEqual(offenders, []);
});

it("every migration file is registered, in order, under its file name; recorded names are unchanged", async () => {
  const files = (await readdir(migrationsDir))
    .filter((name) => /^\d{4}-.+\.ts$/.test(name))
    .map((name) => name.replace(/\.ts$/, ""))
    .sort();
  const names = MIGRATIONS.map((m) => m.name);
  assert.deepEqual(names, files);
  assert.deepEqual(names.slice(0, RECORDED.length), RECORDED);
});

it("no engine state in a module-level map keyed by the database", async () => {
  const keyed: string[] = [];
  for (const file of await sourceFiles(src)) {
    if (/^const \w+ = new WeakMap<Kysely/m.test(await readFile(file, "utf8")))
      keyed.push(path.relative(root, file));
  }
  assert.deepEqual(keyed, []);
});
