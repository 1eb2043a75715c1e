/**
 * The harvest's paging (window.ts) against a Member Node simulated in memory: listObjects as document 1 gives
 * it (fromDate >=, toDate <, start, count, ordered by dateSysMetadataModified), objects changing mid-harvest,
 * nodes that reject toDate or start and count, and a harvest resumed from its saved position.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { HarvestProgress, HarvestProgressStore as ProgressStore } from "../../../src/db/types.ts";
import { D1Error, InvalidRequest } from "../../../src/errors/exceptions.ts";
import type { ListWindow } from "../../../src/federation/client.ts";
import { harvestWindow } from "../../../src/federation/harvest/window.ts";
import type { ObjectInfo } from "../../../src/types/index.ts";

const T0 = Date.parse("2026-01-01T00:00:00Z");
const info = (id: string, ms: number): ObjectInfo => ({
  identifier: id,
  formatId: "text/csv",
  checksum: { algorithm: "MD5", value: "0" },
  dateSysMetadataModified: new Date(ms),
  size: 1,
});

class FakeNode {
  objects = new Map<string, ObjectInfo>();
  calls: ListWindow[] = [];
  rejects: { toDate?: boolean; paging?: boolean } = {};
  afterList?: (call: number) => void;
  add(id: string, ms: number) {
    this.objects.set(id, info(id, ms));
  }
  async listObjects(w: ListWindow) {
    this.calls.push({ ...w });
    if (this.rejects.toDate && w.toDate) throw new InvalidRequest("toDate is not supported.");
    if (this.rejects.paging && (w.start !== undefined || w.count !== undefined)) {
      throw new D1Error("NotImplemented", "start and count are not supported.");
    }
    const matching = [...this.objects.values()]
      .filter(
        (o) =>
          (!w.fromDate || o.dateSysMetadataModified >= w.fromDate) &&
          (!w.toDate || o.dateSysMetadataModified < w.toDate),
      )
      .sort(
        (a, b) =>
          a.dateSysMetadataModified.getTime() - b.dateSysMetadataModified.getTime() ||
          (a.identifier < b.identifier ? -1 : 1),
      );
    const start = w.start ?? 0;
    const items = matching.slice(start, start + (w.count ?? 1000));
    this.afterList?.(this.calls.length);
    return { start, total: matching.length, items };
  }
}

function memoryProgress(): ProgressStore & { saved?: HarvestProgress; saves: number } {
  const store = {
    saved: undefined as HarvestProgress | undefined,
    saves: 0,
    async load() {
      return store.saved ? structuredClone(store.saved) : undefined;
    },
    async save(_: string, p: HarvestProgress) {
      store.saves++;
      store.saved = structuredClone(p);
    },
  };
  return store;
}

const NOW = new Date(T0 + 3_600_000);

async function harvest(node: FakeNode, progress: ProgressStore, seen: Map<string, number>, pageSize = 10) {
  return harvestWindow({
    nodeId: "urn:node:FAKE",
    lister: node,
    progress,
    lastHarvested: undefined,
    now: NOW,
    lagMs: 0,
    pageSize,
    processPage: async (items) => {
      for (const item of items) seen.set(item.identifier, (seen.get(item.identifier) ?? 0) + 1);
    },
  });
}

describe("harvest windows", () => {
  it("pages by date through every object once or twice (at page edges), then closes the window", async () => {
    const node = new FakeNode();
    for (let i = 0; i < 25; i++) node.add(`o${i}`, T0 + i * 10);
    const progress = memoryProgress();
    const seen = new Map<string, number>();
    const result = await harvest(node, progress, seen);
    assert.equal(seen.size, 25);
    assert.ok([...seen.values()].every((n) => n <= 2));
    assert.equal(result.complete, true);
    assert.deepEqual(progress.saved?.harvestedTo, NOW);
    assert.equal(progress.saved?.window, undefined);
    // Every later page asks from the latest date seen, so a change behind the cursor cannot shift it.
    assert.deepEqual(node.calls[1]?.fromDate, new Date(T0 + 90));
    assert.equal(node.calls[1]?.start, 0);
  });

  it("many objects sharing one date are paged by start within that date", async () => {
    const node = new FakeNode();
    for (let i = 0; i < 35; i++) node.add(`same${String(i).padStart(2, "0")}`, T0);
    node.add("later", T0 + 5);
    const seen = new Map<string, number>();
    await harvest(node, memoryProgress(), seen);
    assert.equal(seen.size, 36);
  });

  it("an object modified mid-harvest (leaving the window) makes no later object be skipped", async () => {
    const node = new FakeNode();
    for (let i = 0; i < 30; i++) node.add(`m${String(i).padStart(2, "0")}`, T0 + i);
    node.afterList = (call) => {
      // After the first page, two objects it held are modified: now after the window's end.
      if (call === 1) {
        node.add("m02", NOW.getTime() + 5);
        node.add("m05", NOW.getTime() + 5);
      }
    };
    const seen = new Map<string, number>();
    await harvest(node, memoryProgress(), seen);
    for (let i = 0; i < 30; i++)
      assert.ok(seen.has(`m${String(i).padStart(2, "0")}`), `m${i} was synchronized`);
  });

  it("a node rejecting toDate, then start and count, is listed with fromDate alone; the choice is kept", async () => {
    const node = new FakeNode();
    for (let i = 0; i < 12; i++) node.add(`f${i}`, T0 + i);
    node.add("future", NOW.getTime() + 1000); // listed without toDate, but belongs to the next window
    node.rejects = { toDate: true, paging: true };
    const progress = memoryProgress();
    const seen = new Map<string, number>();
    await harvest(node, progress, seen);
    assert.equal(seen.size, 12);
    assert.ok(!seen.has("future"));
    assert.equal(progress.saved?.listParams, "fromDate");
    assert.deepEqual(Object.keys(node.calls.at(-1) ?? {}), []);
  });

  it("a harvest stopped mid-window resumes from the saved position", async () => {
    const node = new FakeNode();
    for (let i = 0; i < 50; i++) node.add(`r${String(i).padStart(2, "0")}`, T0 + i);
    const progress = memoryProgress();
    let pages = 0;
    await assert.rejects(
      harvestWindow({
        nodeId: "urn:node:FAKE",
        lister: node,
        progress,
        lastHarvested: undefined,
        now: NOW,
        lagMs: 0,
        pageSize: 10,
        processPage: async () => {
          if (++pages === 3) throw new Error("stopped");
        },
      }),
    );
    const cursor = progress.saved?.window?.cursorFrom;
    assert.deepEqual(cursor, new Date(T0 + 18)); // after two pages: 0..9, 9..18
    node.calls = [];
    const seen = new Map<string, number>();
    await harvest(node, progress, seen);
    assert.deepEqual(node.calls[0]?.fromDate, cursor);
    assert.equal(seen.size, 50 - 18);
  });

  it("a window that would end before the last one did harvests nothing", async () => {
    const node = new FakeNode();
    const progress = memoryProgress();
    progress.saved = { harvestedTo: NOW, window: undefined, listParams: "window" };
    const result = await harvest(node, progress, new Map());
    assert.equal(result.pages, 0);
    assert.equal(node.calls.length, 0);
  });
});
