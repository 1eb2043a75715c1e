/** The search caches (src/search/answers/search-cache.ts, answer-cache.ts): bounded by bytes, answers kept once. */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { IndexChangeLog } from "../../../src/db/index-changes.ts";
import { cachedAnswer } from "../../../src/search/answers/answer-cache.ts";
import { jsonBytes } from "../../../src/search/answers/json-bytes.ts";
import { SearchCache } from "../../../src/search/answers/search-cache.ts";

const value = { docs: [] };

describe("search cache", () => {
  it("lets the least recently used entries go once their bytes pass the bound", () => {
    const cache = new SearchCache(new IndexChangeLog(), 1000);
    const generation = cache.generation();
    for (const key of ["a", "b", "c", "d"]) cache.set("answer", key, value, generation, 200);
    assert.ok(cache.get("answer", "a"), "a is used again");
    cache.set("answer", "e", value, generation, 250);
    assert.deepEqual(cache.held("answer"), { entries: 4, bytes: 850 });
    assert.equal(cache.get("answer", "b"), undefined, "b was the least recently used");
    assert.ok(cache.get("answer", "a"));
    assert.ok(cache.get("answer", "e"));
  });

  it("keeps nothing larger than a quarter of its bytes, and counts a replaced entry once", () => {
    const cache = new SearchCache(new IndexChangeLog(), 1000);
    const generation = cache.generation();
    cache.set("result", "big", value, generation, 251);
    assert.equal(cache.get("result", "big"), undefined);
    cache.set("result", "x", value, generation, 100);
    cache.set("result", "x", value, generation, 150);
    assert.deepEqual(cache.held("result"), { entries: 1, bytes: 150 });
    cache.clear();
    assert.deepEqual(cache.held("result"), { entries: 0, bytes: 0 });
  });

  it("drops an entry's bytes when a later index change retires it", () => {
    const log = new IndexChangeLog();
    const cache = new SearchCache(log, 1000);
    cache.set("answer", "a", value, cache.generation(), 200);
    log.note(["pid"]);
    assert.equal(cache.get("answer", "a"), undefined);
    assert.deepEqual(cache.held("answer"), { entries: 0, bytes: 0 });
  });
});

describe("answer cache", () => {
  it("serializes once and answers again with the same bytes around a new QTime, counted by its bytes", async () => {
    const cache = new SearchCache(new IndexChangeLog(), 2 ** 20);
    let writes = 0;
    const answer = async () => ({
      docs: [],
      write: (qtime: number, take: (bytes: Buffer) => Buffer) => {
        writes++;
        return take(Buffer.from(`{"responseHeader":{"QTime":${qtime}},"site":"Ærø"}`));
      },
    });
    const first = await cachedAnswer(cache, "k", performance.now(), answer);
    const second = await cachedAnswer(cache, "k", performance.now(), answer);
    assert.equal(writes, 1);
    for (const body of [first, second])
      assert.match(body.toString("utf8"), /^\{"responseHeader":\{"QTime":\d+\},"site":"Ærø"\}$/);
    const qtime = String(JSON.parse(first.toString("utf8")).responseHeader.QTime);
    assert.deepEqual(cache.held("answer"), { entries: 1, bytes: first.length });
    assert.equal(first.length, Buffer.byteLength(first.toString("utf8")), "UTF-8 bytes, counted as such");
    assert.ok(qtime.length > 0);
  });

  it("keeps its own copy of an answer written in the JSON writer's buffer, which the next answer reuses", async () => {
    const cache = new SearchCache(new IndexChangeLog(), 2 ** 20);
    const answer = (site: string) => async () => ({
      docs: [],
      write: (qtime: number, take: (bytes: Buffer) => Buffer) =>
        jsonBytes(
          (out) => out.raw(`{"responseHeader":{"QTime":${qtime}},"site":`).string(site).raw("}"),
          take,
        ),
    });
    const first = await cachedAnswer(cache, "a", performance.now(), answer("first site"));
    await cachedAnswer(cache, "b", performance.now(), answer("a second, longer site"));
    const again = await cachedAnswer(cache, "a", performance.now(), answer("not asked"));
    for (const body of [first, again])
      assert.match(body.toString("utf8"), /^\{"responseHeader":\{"QTime":\d+\},"site":"first site"\}$/);
  });
});
