/** JSON written straight into bytes (src/search/answers/json-bytes.ts, solrJsonBytes): the bytes of JSON.stringify. */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { jsonBytes } from "../../../src/search/answers/json-bytes.ts";
import { solrJson, solrJsonBytes } from "../../../src/search/answers/response.ts";
import type { SearchResponse } from "../../../src/search/answers/search.ts";

const stringified = (value: unknown) => Buffer.from(JSON.stringify(value), "utf8");

const tricky = [
  "",
  "plain ascii",
  'quote " and backslash \\',
  Array.from({ length: 32 }, (_, i) => String.fromCharCode(i)).join(""),
  "\x7f \u0080 \u07ff \u0800 \uffff \u2028 \u2029 Ærø 東京",
  "astral \u{1f600} \u{10ffff} \u{10000}",
  "lone high \ud800 in the middle",
  "lone low \udc00 in the middle",
  "ends on a high \udbff",
  "\udfff\ud800 low before high",
  "\ud83d\ude00\ud83d",
];

/** Strings of random UTF-16 units, surrogates and controls included. */
function randomStrings(count: number): string[] {
  let seed = 12345;
  const next = () => {
    seed = (seed * 1103515245 + 12345) & 0x7fffffff;
    return seed;
  };
  const pools = [0x20, 0x80, 0x800, 0x10000];
  return Array.from({ length: count }, () =>
    String.fromCharCode(...Array.from({ length: next() % 20 }, () => next() % (pools[next() % 4] as number))),
  );
}

describe("JSON as bytes", () => {
  it("writes strings and counts exactly as JSON.stringify and UTF-8 do", () => {
    const flat: (string | number)[] = [];
    for (const text of [...tricky, ...randomStrings(2000)]) flat.push(text, flat.length);
    flat.push("numbers", 0, -0, 2 ** 31 - 1, 2 ** 31, 2 ** 53 + 2, -7, 1.5, 1e21, Number.NaN, Infinity);
    assert.deepEqual(
      jsonBytes((out) => out.flatList(flat)),
      stringified(flat),
    );
    assert.deepEqual(
      jsonBytes((out) => out.flatList([])),
      stringified([]),
    );
  });

  it("writes a Solr answer with facets as the bytes of its JSON text, members in order", () => {
    const result = {
      qtime: 7,
      params: { q: "*:*", fq: ["a", 'b "c"'], wt: "json" },
      numFound: 2,
      start: 0,
      docs: [{ id: "doc \u{1f600}", title: "Ærø\n" }, { id: "x" }],
      facets: {
        facet_queries: { "formatType:DATA": 3 },
        facet_fields: { site: tricky.flatMap((text, i) => [text, i]), keywords: [] },
        facet_ranges: {
          dateUploaded: { counts: ["2020-01-01T00:00:00Z", 4], gap: "+1YEAR", start: "a", end: "b" },
        },
        facet_intervals: {},
        facet_heatmaps: {},
      },
      stats: { stats_fields: { size: { min: 1, max: 2 } } },
    } as unknown as SearchResponse;
    assert.deepEqual(solrJsonBytes(result), stringified(solrJson(result)));
    const grouped = {
      ...result,
      facets: undefined,
      stats: undefined,
      grouped: { g: { matches: 1, groups: [] } },
    };
    assert.deepEqual(solrJsonBytes(grouped), stringified(solrJson(grouped)));
  });

  it("answers with copies: a later answer, or one written inside another, changes no earlier one", () => {
    const first = jsonBytes((out) => out.flatList(["a", 1]));
    const inner: Buffer[] = [];
    const outer = jsonBytes((out) => {
      out.flatList(["b"]);
      inner.push(jsonBytes((nested) => nested.flatList(["c".repeat(100_000)])));
      out.flatList(["d".repeat(3_000_000)]);
    });
    assert.equal(first.toString(), '["a",1]');
    assert.equal(inner[0]?.toString(), JSON.stringify(["c".repeat(100_000)]));
    assert.equal(outer.toString(), `["b"]${JSON.stringify(["d".repeat(3_000_000)])}`);
    assert.ok(first.buffer.byteLength < 1 << 20, "a short answer holds no more than a pool's slab");
  });
});
