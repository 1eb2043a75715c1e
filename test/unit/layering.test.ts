/**
 * The modules' direction: the Member and Coordinating Node operations (src/services) never import the federation
 * (src/federation), which works on top of them; the object-write core (src/objects) imports neither, nor the
 * composition root (src/node) that registers what follows a write and starts the node; HTTP (src/http) only
 * builds the app the root starts. No two top-level folders of src/ import each other, directly or around a circle;
 * the search module sits on the database layer, which never imports it (its migrations included).
 */
import assert from "node:assert/strict";
import { readdir, readFile } from "node:fs/promises";
import path from "node:path";
import { it } from "node:test";

const src = path.resolve(import.meta.dirname, "../../src");

/** Every import of every .ts file under `folder`, as the folder of src/ it reaches (`services`, `db`, ...). */
async function reachedFolders(folder: string): Promise<{ file: string; target: string }[]> {
  const entries = await readdir(path.join(src, folder), { recursive: true, withFileTypes: true });
  const found: { file: string; target: string }[] = [];
  for (const entry of entries) {
    if (!entry.isFile() || !entry.name.endsWith(".ts")) continue;
    const file = path.join(entry.parentPath, entry.name);
    const text = await readFile(file, "utf8");
    for (const match of text.matchAll(/^\s*(?:import|export)\b[^;]*?\bfrom\s+"(\.[^"]+)"/gms)) {
      const target = path.relative(src, path.resolve(path.dirname(file), match[1] as string));
      found.push({ file: path.relative(src, file), target: target.split(path.sep)[0] as string });
    }
  }
  return found;
}

async function offenders(folder: string, forbidden: readonly string[]): Promise<string[]> {
  return (await reachedFolders(folder))
    .filter(({ target }) => forbidden.includes(target))
    .map(({ file, target }) => `${file} imports src/${target}`);
}

it("src/services never imports src/federation or src/node", async () => {
  assert.deepEqual(await offenders("services", ["federation", "node"]), []);
});

it("the task queue's workers (src/tasks) sit below the services: they import neither services nor federation", async () => {
  assert.deepEqual(await offenders("tasks", ["services", "federation", "node", "http"]), []);
});

it("src/federation never imports src/node", async () => {
  assert.deepEqual(await offenders("federation", ["node"]), []);
});

it("the object-write core (src/objects) imports neither services, federation nor the composition root", async () => {
  assert.deepEqual(await offenders("objects", ["services", "federation", "node", "http"]), []);
});

it("nothing but the composition root registers what follows a write: src/http never imports src/node/subscribers", async () => {
  const found = (await reachedFolders("http")).filter(({ target }) => target === "node");
  const viaSubscribers = [];
  for (const { file } of found) {
    const text = await readFile(path.join(src, file), "utf8");
    if (text.includes("node/subscribers")) viaSubscribers.push(file);
  }
  assert.deepEqual(viaSubscribers, []);
});

it("HTTP sits below the composition root: src/http never imports src/node/start (startNode builds the app)", async () => {
  const found = (await reachedFolders("http")).filter(({ target }) => target === "node");
  const viaStart = [];
  for (const { file } of found) {
    const text = await readFile(path.join(src, file), "utf8");
    if (/node\/start(?:\.ts)?"/.test(text)) viaStart.push(file);
  }
  assert.deepEqual(viaStart, []);
});

it("what a write keeps for the index is asked of its subscribers: uploads, harvest, replication and the write core never import src/search", async () => {
  const found = [
    ...(await reachedFolders("objects")),
    ...(await reachedFolders("federation")),
    ...(await reachedFolders("http")).filter(({ file }) => file === path.join("http", "multipart.ts")),
  ].filter(({ target }) => target === "search");
  const indexing = [];
  for (const { file } of found) {
    const text = await readFile(path.join(src, file), "utf8");
    if (file.startsWith("objects") || file.startsWith("http") || /search\/indexing\//.test(text))
      indexing.push(file);
  }
  assert.deepEqual(indexing, []);
});

it("the search module has one port: outside src/search, only src/search/index.ts is imported", async () => {
  const offenders: string[] = [];
  for (const folder of (await readdir(src, { withFileTypes: true })).filter((e) => e.isDirectory())) {
    if (folder.name === "search") continue;
    for (const { file } of await reachedFolders(folder.name)) {
      const text = await readFile(path.join(src, file), "utf8");
      for (const match of text.matchAll(/\bfrom\s+"(\.[^"]+)"/g)) {
        const target = path.relative(
          src,
          path.resolve(path.dirname(path.join(src, file)), match[1] as string),
        );
        if (target.startsWith(`search${path.sep}`) && target !== path.join("search", "index.ts"))
          offenders.push(`${file} imports src/${target}`);
      }
    }
  }
  assert.deepEqual([...new Set(offenders)], []);
});

it("the domain types (src/types) sit below every layer: they import only src/errors", async () => {
  const reached = (await reachedFolders("types")).filter(({ target }) => target !== "types");
  assert.deepEqual(
    reached
      .filter(({ target }) => target !== "errors")
      .map(({ file, target }) => `${file} imports src/${target}`),
    [],
  );
});

it("every change to an object goes through the write core: no transaction or object write elsewhere", async () => {
  const found: string[] = [];
  const write = /\bdb\.(?:transaction\(|objects\.(?:insert|insertMany|replaceSysmeta|remove)\()/;
  for (const folder of [
    "services",
    "federation",
    "http",
    "cli",
    "node",
    "search",
    "tasks",
    "import",
    "ops",
  ]) {
    const entries = await readdir(path.join(src, folder), { recursive: true, withFileTypes: true });
    for (const entry of entries) {
      if (!entry.isFile() || !entry.name.endsWith(".ts")) continue;
      const file = path.join(entry.parentPath, entry.name);
      // The search index's store writes its own tables in transactions of its own, never objects.
      if (path.relative(src, file).startsWith(path.join("search", "store"))) continue;
      if (write.test(await readFile(file, "utf8"))) found.push(path.relative(src, file));
    }
  }
  assert.deepEqual(found, [], "write objects with writeObjects, ingest or removeObject (src/objects/)");
});

/** The folder of src/ each relative import of every source file reaches, as `from -> to` pairs of top-level folders. */
async function folderEdges(): Promise<Map<string, string[]>> {
  const edges = new Map<string, string[]>();
  const entries = await readdir(src, { recursive: true, withFileTypes: true });
  for (const entry of entries) {
    if (!entry.isFile() || !/\.(?:ts|mjs)$/.test(entry.name)) continue;
    const file = path.join(entry.parentPath, entry.name);
    const from = path.relative(src, file).split(path.sep)[0] as string;
    const text = await readFile(file, "utf8");
    for (const match of text.matchAll(
      /(?:^\s*(?:import|export)\b[^;]*?\bfrom\s+|\bimport\s*\(\s*)"(\.[^"]+)"/gms,
    )) {
      const reached = path.relative(src, path.resolve(path.dirname(file), match[1] as string));
      const to = reached.split(path.sep)[0] as string;
      if (to === from || to === ".." || reached.startsWith("..")) continue;
      const key = `${from} -> ${to}`;
      edges.set(key, [...(edges.get(key) ?? []), `${path.relative(src, file)} imports ${match[1]}`]);
    }
  }
  return edges;
}

it("no import circle between the top-level folders of src/", async () => {
  const edges = await folderEdges();
  const next = new Map<string, Set<string>>();
  for (const key of edges.keys()) {
    const [from, to] = key.split(" -> ") as [string, string];
    next.set(from, (next.get(from) ?? new Set()).add(to));
  }
  const circles: string[] = [];
  const done = new Set<string>();
  const walk = (folder: string, trail: string[]): void => {
    const at = trail.indexOf(folder);
    if (at !== -1) {
      const circle = [...trail.slice(at), folder];
      const witnesses = circle.slice(1).map((to, i) => edges.get(`${circle[i]} -> ${to}`)?.[0]);
      circles.push(`${circle.join(" -> ")} (${witnesses.join("; ")})`);
      return;
    }
    if (done.has(folder)) return;
    for (const to of next.get(folder) ?? []) walk(to, [...trail, folder]);
    done.add(folder);
  };
  for (const folder of next.keys()) walk(folder, []);
  assert.deepEqual(circles, []);
});

it("the node's database is opened in one place, with every migration: only src/node/open-database.ts calls openDatabase", async () => {
  const found: string[] = [];
  const entries = await readdir(src, { recursive: true, withFileTypes: true });
  for (const entry of entries) {
    if (!entry.isFile() || !entry.name.endsWith(".ts")) continue;
    const file = path.relative(src, path.join(entry.parentPath, entry.name));
    if (file === path.join("node", "open-database.ts") || file.startsWith(`db${path.sep}`)) continue;
    if (/\bopenDatabase\s*\(/.test(await readFile(path.join(src, file), "utf8"))) found.push(file);
  }
  assert.deepEqual(found, [], "open it with openNodeDatabase (src/node/open-database.ts)");
});
