/**
 * The data layer's seams: SQL and the query builder stay in src/db/ and the search index's own store
 * (src/search/store/), which src/db never imports and whose SQL names only the index's own tables (the node's
 * objects reach search through its object source); engine state belongs to an object opened with the node (the
 * search index: ctx.search), not to a module-level map keyed by the database; migrations are frozen
 * snapshots in two folders (the node's, src/db/migrations with its subfolders by role, and the search index's,
 * src/search/store/migrations), applied as one list in number order under the names existing databases recorded.
 */
import assert from "node:assert/strict";
import { readdir, readFile } from "node:fs/promises";
import path from "node:path";
import { it } from "node:test";
import { inNumberOrder, MIGRATIONS, migrate } from "../../../src/db/migrations/index.ts";
import type { Migration, MigrationDb } from "../../../src/db/migrations/migration.ts";
import { NODE_MIGRATIONS } from "../../../src/node/open-database.ts";
import { SEARCH_MIGRATIONS } from "../../../src/search/index.ts";

const root = path.resolve(import.meta.dirname, "../../..");
const src = path.join(root, "src");
const migrationsDir = path.join(src, "db", "migrations");
const searchMigrationsDir = path.join(src, "search", "store", "migrations");

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
  "0011-import",
  "0012-audit",
  "0013-events-by-type",
  "0014-search-rebuild",
  "0015-row-counts",
  "0016-search-changes",
  "0017-events-counted-by-writers",
  "0018-search-values-by-pid",
  "0019-search-docs-write-cost",
  "0020-node-pending-subjects",
  "0021-import-copies",
  "0022-date-microseconds",
  "0023-browser-sessions",
  "0024-uploads",
  "0025-oai-tombstones",
  "0026-usage-counts",
  "0027-review-links",
  "0028-digest-lookup",
  "0029-listed-objects",
  "0030-reservations-by-subject",
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

it("migrations import nothing but Kysely, their own folder (and its subfolders) and what a migration is", async () => {
  const offenders: string[] = [];
  for (const dir of [migrationsDir, searchMigrationsDir]) {
    for (const file of await sourceFiles(dir)) {
      for (const from of importsOf(await readFile(file, "utf8"))) {
        const target = path.resolve(path.dirname(file), from);
        const local = from.startsWith(".") && target.startsWith(dir + path.sep);
        const definition = target === path.join(migrationsDir, "migration.ts");
        if (from !== "kysely" && !local && !definition)
          offenders.push(`${path.relative(root, file)} imports ${from}`);
      }
    }
  }
  assert.deepEqual(offenders, []);
});

/**
 * The migration files of a folder and its subfolders (by role), as the names they register under (NNNN-name,
 * the file's name without its folder), in number order.
 */
async function migrationFiles(dir: string): Promise<string[]> {
  return (await readdir(dir, { recursive: true }))
    .map((name) => path.basename(name))
    .filter((name) => /^\d{4}-.+\.ts$/.test(name))
    .map((name) => name.replace(/\.ts$/, ""))
    .sort();
}

it("every migration file is registered in its folder's list, under its file name (not its subfolder)", async () => {
  assert.deepEqual(
    MIGRATIONS.map((m) => m.name),
    await migrationFiles(migrationsDir),
  );
  assert.deepEqual(
    SEARCH_MIGRATIONS.map((m) => m.name),
    await migrationFiles(searchMigrationsDir),
  );
});

it("the node applies both folders' migrations as one list by number; recorded names keep their place", async () => {
  const files = [
    ...(await migrationFiles(migrationsDir)),
    ...(await migrationFiles(searchMigrationsDir)),
  ].sort();
  const names = NODE_MIGRATIONS.map((m) => m.name);
  assert.deepEqual(names, files);
  assert.deepEqual(names.slice(0, RECORDED.length), RECORDED);
  const numbers = names.map((name) => name.slice(0, 4));
  assert.equal(new Set(numbers).size, numbers.length, "a migration number is taken once across the folders");
});

it("merging by number refuses a number taken twice, and the runner a list out of number order", async () => {
  const named = (name: string): Migration => ({ name, up: async () => undefined });
  assert.deepEqual(
    inNumberOrder([named("0001-a"), named("0003-c")], [named("0002-b")]).map((m) => m.name),
    ["0001-a", "0002-b", "0003-c"],
  );
  assert.throws(() => inNumberOrder([named("0001-a"), named("0002-b")], [named("0002-c")]), /0002/);
  assert.throws(() => inNumberOrder([named("search-x")]), /NNNN/);
  const untouched = {} as MigrationDb;
  await assert.rejects(migrate(untouched, "sqlite", [named("0002-b"), named("0001-a")]), /0001-a/);
});

it("no engine state in a module-level map keyed by the database", async () => {
  const keyed: string[] = [];
  for (const file of await sourceFiles(src)) {
    if (/^const \w+ = new WeakMap<Kysely/m.test(await readFile(file, "utf8")))
      keyed.push(path.relative(root, file));
  }
  assert.deepEqual(keyed, []);
});

it("outside its store, src/search sees the node's database only through IndexContext's narrow source", async () => {
  const offenders: string[] = [];
  const store = path.join(src, "search", "store");
  for (const file of await sourceFiles(path.join(src, "search"))) {
    if (file.startsWith(store + path.sep)) continue;
    const text = await readFile(file, "utf8");
    const relative = path.relative(root, file);
    if (/\.kysely\b/.test(text)) offenders.push(`${relative} reaches the query builder`);
    for (const from of importsOf(text)) {
      if (!from.startsWith(".")) continue;
      const target = path
        .relative(src, path.resolve(path.dirname(file), from))
        .split(path.sep)
        .join("/");
      if (target === "db/types.ts" || target === "db/index.ts" || target === "db/open.ts")
        offenders.push(`${relative} imports ${from}`);
    }
  }
  assert.deepEqual(
    offenders,
    [],
    "read objects through IndexedDatabase / ObjectBytes; SQL in src/search/store",
  );
});

/** The node's tables (src/db/schema.ts `Tables`), leaving out the search index's own (`search_*`). */
async function nodeTables(): Promise<string[]> {
  const schema = await readFile(path.join(src, "db", "schema.ts"), "utf8");
  const body = /export interface Tables \{([^}]*)\}/.exec(schema)?.[1] ?? "";
  return [...body.matchAll(/^\s*(\w+):/gm)]
    .map((m) => m[1] as string)
    .filter((name) => !name.startsWith("search_"));
}

it("no SQL of src/search names the node's tables: bulk indexing reads objects through its object source", async () => {
  const tables = await nodeTables();
  assert.ok(tables.includes("objects") && tables.includes("access_rules"), "the node's tables are read");
  const names = tables.join("|");
  const naming = [
    // The query builder: a table, or a column qualified by its table.
    new RegExp(
      `\\b(?:selectFrom|innerJoin|leftJoin|rightJoin|fullJoin|deleteFrom|updateTable|insertInto|with)\\(\\s*"(?:${names})"`,
      "g",
    ),
    new RegExp(`"(?:${names})\\.\\w+"`, "g"),
    // SQL text.
    new RegExp(`\\b(?:from|join|into|update|table)\\s+(?:${names})\\b`, "gi"),
  ];
  const found: string[] = [];
  for (const file of await sourceFiles(path.join(src, "search"))) {
    const code = (await readFile(file, "utf8")).replace(/\/\*[\s\S]*?\*\//g, "").replace(/^\s*\/\/.*$/gm, "");
    for (const pattern of naming)
      for (const match of code.matchAll(pattern))
        found.push(`${path.relative(root, file).split(path.sep).join("/")}: ${match[0]}`);
  }
  // checksum:<hex> is answered by one SQL condition over the digests the node keeps (store/conditions.ts).
  assert.deepEqual(found, ["src/search/store/conditions.ts: from objects"]);
});
