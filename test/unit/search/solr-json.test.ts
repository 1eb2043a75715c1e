/**
 * Solr JSON written around its QTime (src/search/response.ts solrJsonAroundQtime): the pieces and a QTime
 * between them are, character for character, what JSON.stringify makes of solrJson for the same answer,
 * whatever the values hold (quotes, backslashes, control characters, non-ASCII, lone surrogates).
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { solrJson, solrJsonAroundQtime } from "../../../src/search/response.ts";
import type { SearchResponse } from "../../../src/search/search.ts";

const ODD = [
  'a "quoted" site',
  "back\\slash",
  "tab\tnew\nline\u0000nul\u001f",
  "Ærø Ø 日本 \u{1F600}",
  "lone \uD800 high",
  "lone \uDC00 low",
  "\u2028\u2029",
  "</script>",
  "",
];

function answer(qtime: number): SearchResponse {
  return {
    params: { q: 'site:"a \\"b\\""', fq: ["x", "日本"], "facet.field": ["site", "keywords"] },
    numFound: 3,
    start: 0,
    docs: [
      { id: ODD[0] as string, title: ODD[2] as string, keywords: ODD.slice(3), size: 12.5, isPublic: true },
      { id: "b", dateUploaded: "2020-01-01T00:00:00Z" },
    ],
    facets: {
      facet_queries: { [ODD[1] as string]: 2 },
      facet_fields: { site: ODD.flatMap((v, i) => [v, i + 1]), keywords: [], [ODD[4] as string]: ["x", 1] },
      facet_ranges: {
        dateUploaded: { counts: ["2020-01-01T00:00:00Z", 2], gap: "+1YEAR", start: "a", end: "b" },
      },
      facet_intervals: {},
      facet_heatmaps: {},
    },
    stats: { stats_fields: { size: null } },
    qtime,
  };
}

describe("Solr JSON around QTime", () => {
  it("is JSON.stringify of solrJson with any QTime between its pieces", () => {
    for (const qtime of [0, 7, 12_345]) {
      const { before, after } = solrJsonAroundQtime(answer(999));
      assert.equal(`${before}${qtime}${after}`, JSON.stringify(solrJson(answer(qtime))));
    }
  });

  it("writes grouped answers, and answers without facets or stats, the same way", () => {
    const plain: SearchResponse = { params: {}, numFound: 0, start: 5, docs: [], qtime: 1 };
    const grouped: SearchResponse = {
      ...plain,
      grouped: { site: { matches: 2, ngroups: 1, groups: [] } },
      stats: { stats_fields: {} },
    };
    for (const result of [plain, grouped]) {
      const { before, after } = solrJsonAroundQtime(result);
      assert.equal(`${before}1${after}`, JSON.stringify(solrJson(result)));
      assert.deepEqual(JSON.parse(`${before}1${after}`), solrJson(result));
    }
  });
});
