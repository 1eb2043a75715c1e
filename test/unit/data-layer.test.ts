/**
 * One write path: SQL lives in the data layer. No file outside src/db/ imports Kysely (the exceptions listed
 * below are still being moved there, and the list may only shrink), and no engine state is kept in a module-level
 * map keyed by the database: it belongs to an object opened with the node (the search index: ctx.search).
 */
import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, it } from "node:test";
import { fileURLToPath } from "node:url";

const SRC = fileURLToPath(new URL("../../src/", import.meta.url));

/** Files outside src/db/ that still import Kysely (the background tasks and federation; to be moved). */
const NOT_YET_MOVED = new Set<string>([
  "federation/harvest/progress.ts",
  "federation/logs/progress.ts",
  "federation/replication/node-records.ts",
  "services/mn/replication.ts",
  "tasks/queue.ts",
]);

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(full);
    return entry.name.endsWith(".ts") ? [full] : [];
  });
}

const files = sourceFiles(SRC).map((full) => ({
  name: path.relative(SRC, full).split(path.sep).join("/"),
  text: readFileSync(full, "utf8"),
}));

describe("data layer", () => {
  it("no file outside src/db/ imports kysely", () => {
    const importing = files
      .filter((f) => !f.name.startsWith("db/") && /from\s+"kysely"/.test(f.text))
      .map((f) => f.name)
      .sort();
    assert.deepEqual(
      importing.filter((name) => !NOT_YET_MOVED.has(name)),
      [],
      "these files import kysely: move their SQL into src/db/",
    );
    const moved = [...NOT_YET_MOVED].filter((name) => !importing.includes(name));
    assert.deepEqual(moved, [], "these files no longer import kysely: take them off the list");
  });

  it("no engine state in a module-level map keyed by the database", () => {
    const keyed = files
      .filter((f) => /^const \w+ = new WeakMap<Kysely/m.test(f.text))
      .map((f) => f.name)
      .sort();
    assert.deepEqual(keyed, []);
  });
});
