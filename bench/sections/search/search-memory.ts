/**
 * search-memory (only when named): the CPU of a search-page query answered from the engine's memory, without a
 * database, at BENCH_SEARCH_MEMORY_DOCS documents (default 1,000,000) of the search-scale load's fields
 * (bench/lib/corpus/synthetic-search-index.ts). The same three queries as search-scale (a new keyword filter
 * each time; unfiltered; unfiltered right after a rewrite), answered by `answerFrom` (not serialized), beside a
 * baseline:
 * the same queries without facets (the filters' sets and the page alone); then the distinct query as a request
 * takes it: `runQuery` (the Solr JSON written, the answer cache missed by the new filter) and the answer encoded
 * as UTF-8, as the reply sends it. Figures: p50 / p99 and this process's
 * CPU per query. The memory is filled once (its time printed, not a figure). BENCH_PROFILE_DIR=DIR writes a CPU
 * profile of the queries alone (not the filling) there (bench/lib/measure/in-process-profile.ts).
 * BENCH_SEARCH_MEMORY_ONLY=TEXT runs only the queries whose name contains TEXT (e.g. "request").
 */
import { loadavg } from "node:os";
import { answerFrom, type SearchIndexHandle } from "../../../src/search/answers/search.ts";
import { SearchCache } from "../../../src/search/answers/search-cache.ts";
import { runQuery } from "../../../src/search/answers/service.ts";
import { SearchMemory } from "../../../src/search/memory/index.ts";
import { parseSearchRequest } from "../../../src/search/query/parse-request.ts";
import type { SearchRequest } from "../../../src/search/query/request.ts";
import { searchPageParams } from "../../../src/search/warm.ts";
import { SyntheticSearchIndex } from "../../lib/corpus/synthetic-search-index.ts";
import { profiled } from "../../lib/measure/in-process-profile.ts";
import { record } from "../../lib/report.ts";
import { keywordClause } from "./search.ts";

const DOCS = Number(process.env.BENCH_SEARCH_MEMORY_DOCS ?? 1_000_000);
const QUERIES = Number(process.env.BENCH_SEARCH_MEMORY_QUERIES ?? 50);
const ONLY = process.env.BENCH_SEARCH_MEMORY_ONLY ?? "";
const CALLER = { subjects: new Set(["public"]) };

interface Timed {
  p50: number;
  p99: number;
  cpuMs: number;
}

/** `query` run QUERIES times (after 5 untimed), `before` (untimed, but in the CPU) ahead of each. */
async function timed(query: (i: number) => Promise<void>, before: (i: number) => void): Promise<Timed> {
  for (let i = 0; i < 5; i++) {
    before(i);
    await query(i);
  }
  const times: number[] = [];
  const cpu = process.cpuUsage();
  for (let i = 5; i < QUERIES + 5; i++) {
    before(i);
    const began = performance.now();
    await query(i);
    times.push(performance.now() - began);
  }
  const used = process.cpuUsage(cpu);
  times.sort((a, b) => a - b);
  const at = (q: number) => times[Math.min(times.length - 1, Math.floor(q * times.length))] as number;
  return { p50: at(0.5), p99: at(0.99), cpuMs: (used.user + used.system) / 1000 / QUERIES };
}

/** The search page, with `fq` when given, with or without its facets. */
function pageRequest(fq: string | undefined, facets: boolean): SearchRequest {
  const params = searchPageParams();
  if (fq) params.add("fq", fq);
  if (!facets)
    params.entries.splice(
      params.entries.findIndex(([name]) => name === "facet"),
      1,
    );
  return parseSearchRequest(params);
}

const distinctFilter = (i: number) =>
  `${keywordClause(i)} AND NOT ${keywordClause(i + 1 + Math.floor(i / 60))}`;

export async function searchMemory(): Promise<void> {
  const index = new SyntheticSearchIndex(DOCS);
  const handle = index.handle();
  const memory = new SearchMemory(handle.db);
  const fillStarted = performance.now();
  const fillCpu = process.cpuUsage();
  await answerFrom(handle, memory, pageRequest(undefined, true), CALLER);
  const fill = process.cpuUsage(fillCpu);
  process.stderr.write(
    `  memory filled in ${((performance.now() - fillStarted) / 1000).toFixed(1)} s (CPU ${((fill.user + fill.system) / 1e6).toFixed(1)} s), ${(memory.bytes() / 2 ** 20).toFixed(0)} MB (V8 heap ${(process.memoryUsage().heapUsed / 2 ** 20).toFixed(0)} MB used)\n`,
  );
  // The engine's handle as the routes hold it: the answer cache, the memory always ready.
  const served = {
    ...handle,
    cache: new SearchCache(index.changes),
    memoryForQuery: async () => memory,
    keepWithinBudget: () => {},
  } as unknown as SearchIndexHandle;
  const nothing = () => {};
  let rewritten = 0;
  const rewrite = () => index.rewrite((rewritten++ * 97) % DOCS);
  const kinds: [string, (facets: boolean) => (i: number) => Promise<void>, (i: number) => void][] = [
    [
      "search page + a new filter, distinct",
      (facets) => async (i) => {
        await answerFrom(handle, memory, pageRequest(distinctFilter(i), facets), CALLER);
      },
      nothing,
    ],
    [
      "search page unfiltered",
      (facets) => async () => {
        await answerFrom(handle, memory, pageRequest(undefined, facets), CALLER);
      },
      nothing,
    ],
    [
      "search page right after a document rewrite",
      (facets) => async () => {
        await answerFrom(handle, memory, pageRequest(undefined, facets), CALLER);
      },
      rewrite,
    ],
    [
      "search page + a new filter, distinct, as a request (JSON written)",
      (facets) => async (i) => {
        await runQuery(served, pageRequest(distinctFilter(i), facets), CALLER);
      },
      nothing,
    ],
  ];
  await profiled("search-memory", async () => {
    for (const [what, query, before] of kinds) {
      if (!what.includes(ONLY)) continue;
      const base = await timed(query(false), before);
      const t = await timed(query(true), before);
      record({
        section: "search-memory",
        name: `${what}, ${DOCS} docs, Node CPU a query`,
        value: t.cpuMs,
        unit: "ms",
        baseline: { name: "the same without facets, CPU a query", value: base.cpuMs, unit: "ms" },
        ratio: t.cpuMs / base.cpuMs,
        target: "p50 <= 50 ms and p99 <= 250 ms at 2,500,000 documents (with the database's part)",
        notes: `p50 ${t.p50.toFixed(1)} / p99 ${t.p99.toFixed(1)} ms (without facets ${base.p50.toFixed(1)} / ${base.p99.toFixed(1)} ms) over ${QUERIES} queries; load ${loadavg()
          .map((l) => l.toFixed(1))
          .join(" / ")}`,
      });
    }
  });
}
