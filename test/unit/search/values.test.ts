/** Dates (Solr format, lenient reading, date math), tokens, geohashes and the field catalogue. */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { geohash } from "../../../src/search/extract/geo.ts";
import { SolrParams } from "../../../src/search/query/params.ts";
import { formatSolrDate, readLenientDate, readQueryDate } from "../../../src/search/schema/dates.ts";
import { fieldSpec } from "../../../src/search/schema/fields.ts";
import { tokenize } from "../../../src/search/schema/tokens.ts";

describe("search values", () => {
  it("writes dates as Solr does and reads metadata dates leniently", () => {
    assert.equal(formatSolrDate(Date.UTC(2020, 0, 2, 3, 4, 5)), "2020-01-02T03:04:05Z");
    assert.equal(formatSolrDate(Date.UTC(2020, 0, 2, 3, 4, 5, 60)), "2020-01-02T03:04:05.060Z");
    assert.equal(readLenientDate("2012"), Date.UTC(2012, 0, 1));
    assert.equal(readLenientDate("2012-05"), Date.UTC(2012, 4, 1));
    assert.equal(readLenientDate("2012-05-07 10:00"), Date.UTC(2012, 4, 7, 10));
    assert.equal(readLenientDate("sometime"), undefined);
  });

  it("evaluates Solr date math", () => {
    const now = Date.UTC(2024, 5, 15, 13, 45, 10);
    assert.equal(readQueryDate("NOW", now), now);
    assert.equal(readQueryDate("NOW/DAY", now), Date.UTC(2024, 5, 15));
    assert.equal(readQueryDate("NOW-1YEAR/YEAR", now), Date.UTC(2023, 0, 1));
    assert.equal(readQueryDate("2020-01-31T00:00:00Z+1MONTH", now), Date.UTC(2020, 2, 2));
    assert.equal(readQueryDate("NOW+2HOURS", now), now + 2 * 3600_000);
    assert.equal(readQueryDate("NOW+1FORTNIGHT", now), undefined);
  });

  it("tokenizes text fields in lower case on letters and digits", () => {
    assert.deepEqual(tokenize("Augrabies falls: National-Park (2004), can't"), [
      "augrabies",
      "falls",
      "national",
      "park",
      "2004",
      "cant",
    ]);
    assert.deepEqual(tokenize("Ωmega δ¹³C"), ["ωmega", "δ¹³c"]);
  });

  it("computes geohashes", () => {
    assert.equal(geohash(57.64911, 10.40744, 9), "u4pruydqq");
    assert.equal(geohash(0, 0, 1), "s");
  });

  it("knows the schema's fields and dynamic fields", () => {
    assert.equal(fieldSpec("title")?.type, "text");
    assert.equal(fieldSpec("keywords")?.multiValued, true);
    assert.equal(fieldSpec("read_count_i")?.type, "int");
    assert.equal(fieldSpec("nosuch"), undefined);
  });

  it("keeps repeated parameters and per-field overrides", () => {
    const p = SolrParams.from({
      "facet.field": ["a", "b"],
      "facet.limit": "5",
      "f.b.facet.limit": "-1",
      q: "x",
    });
    assert.deepEqual(p.all("facet.field"), ["a", "b"]);
    assert.equal(p.int("facet.limit", 100, -1, 1000, "a"), 5);
    assert.equal(p.int("facet.limit", 100, -1, 1000, "b"), -1);
    assert.deepEqual(p.echo(), {
      "facet.field": ["a", "b"],
      "facet.limit": "5",
      "f.b.facet.limit": "-1",
      q: "x",
    });
  });
});
