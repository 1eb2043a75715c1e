/** parseSearchRequest: Solr's parameters -> one checked SearchRequest (src/search/query/parse-request.ts). */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { InvalidRequest } from "../../../src/errors/exceptions.ts";
import { SolrParams } from "../../../src/search/query/params.ts";
import { MAX_ROWS, parseSearchRequest } from "../../../src/search/query/parse-request.ts";

const parse = (record: Record<string, string | string[]>) => parseSearchRequest(SolrParams.from(record));

/** The call throws InvalidRequest whose description matches `description`. */
function refuses(record: Record<string, string | string[]>, description: RegExp): void {
  assert.throws(
    () => parse(record),
    (error: unknown) => error instanceof InvalidRequest && description.test(error.message),
  );
}

describe("parseSearchRequest", () => {
  it("names a facet.query's count by its {!key=...} local parameter, as MetacatUI's profile asks", () => {
    const facet = parse({
      facet: "true",
      "facet.query": ["{!key=<1950}(beginDate:[* TO 1949-12-31T23:59:59.999Z/YEAR])", "{!key='a b'}id:x"],
    }).facet;
    assert.deepEqual(facet?.queries, [
      { key: "<1950", query: "(beginDate:[* TO 1949-12-31T23:59:59.999Z/YEAR])" },
      { key: "a b", query: "id:x" },
    ]);
    refuses({ facet: "true", "facet.query": "{!ex=dt}id:x" }, /local parameter "ex" is not supported/);
    refuses({ facet: "true", "facet.query": "{!key}id:x" }, /cannot be read/);
  });

  it("fills Solr's defaults for a bare request", () => {
    const request = parse({});
    assert.equal(request.q, "*:*");
    assert.deepEqual(request.fq, []);
    assert.equal(request.start, 0);
    assert.equal(request.rows, 10);
    assert.equal(request.wt, "xml");
    assert.equal(request.defaultField, "text");
    assert.equal(request.defaultOperator, "AND");
    assert.equal(request.fields, undefined);
    assert.deepEqual(request.sort, []);
    assert.equal(request.facet, undefined);
    assert.equal(request.stats, undefined);
    assert.equal(request.group, undefined);
  });

  it("keeps repeated parameters in order, and echoes them as Solr does", () => {
    const request = parse({ q: "a", fq: ["formatType:METADATA", "-obsoletedBy:*"], archived: "archived:*" });
    assert.deepEqual(request.fq, ["formatType:METADATA", "-obsoletedBy:*"]);
    assert.deepEqual(request.archived, ["archived:*"]);
    assert.deepEqual(request.echo, {
      q: "a",
      fq: ["formatType:METADATA", "-obsoletedBy:*"],
      archived: "archived:*",
    });
    assert.deepEqual(request.raw, [
      ["q", "a"],
      ["fq", "formatType:METADATA"],
      ["fq", "-obsoletedBy:*"],
      ["archived", "archived:*"],
    ]);
  });

  it("takes the first of a repeated single-valued parameter", () => {
    assert.equal(parse({ rows: ["3", "7"] }).rows, 3);
    assert.equal(parse({ q: ["x", "y"] }).q, "x");
  });

  it("treats an empty rows or start as absent, and refuses what is not an integer in range", () => {
    assert.equal(parse({ rows: "", start: " " }).rows, 10);
    assert.equal(parse({ rows: " 25 " }).rows, 25);
    refuses({ start: "-1" }, /start=-1 is out of range/);
    refuses({ rows: "-5" }, /rows=-5 is out of range/);
    refuses({ rows: String(MAX_ROWS + 1) }, /out of range/);
    refuses({ rows: "ten" }, /rows="ten" is not an integer/);
    refuses({ start: "1.5" }, /not an integer/);
  });

  it("reads wt case-blind and refuses other formats", () => {
    assert.equal(parse({ wt: " JSON " }).wt, "json");
    assert.equal(parse({ wt: "xml" }).wt, "xml");
    refuses({ wt: "csv" }, /wt=csv is not supported/);
    refuses({ wt: "" }, /wt= is not supported/);
  });

  it("reads q.op and refuses anything but AND or OR", () => {
    assert.equal(parse({ "q.op": "or" }).defaultOperator, "OR");
    refuses({ "q.op": "XOR" }, /q.op must be AND or OR/);
  });

  it("reads fl with aliases, score ignored, * for every field", () => {
    assert.deepEqual(parse({ fl: "id, read:read_count_i score" }).fields, [
      { as: "id", field: "id" },
      { as: "read", field: "read_count_i" },
    ]);
    assert.equal(parse({ fl: "id,*" }).fields, undefined);
  });

  it("reads sort keys and refuses unknown fields or a missing direction", () => {
    assert.deepEqual(
      parse({ sort: "dateUploaded desc, title asc, score desc" }).sort.map((k) => [k.field, k.descending]),
      [
        ["dateUploaded", true],
        ["titlestr", false],
      ],
    );
    refuses({ sort: "nosuch asc" }, /sort param field can't be found: nosuch/);
    refuses({ sort: "id" }, /Can't determine a Sort Order/);
  });

  it("resolves facet settings per field: f.<field>.facet.* before facet.*", () => {
    const facet = parse({
      facet: "true",
      "facet.field": ["keywords", " origin ", "keywords", ""],
      "facet.limit": "5",
      "f.origin.facet.limit": "-1",
      "f.origin.facet.mincount": "0",
      "facet.prefix": "Ab",
      "f.keywords.facet.sort": "INDEX",
      "facet.query": ["a:b", "a:b"],
    }).facet;
    assert.ok(facet);
    assert.deepEqual(facet.queries, [
      { key: "a:b", query: "a:b" },
      { key: "a:b", query: "a:b" },
    ]);
    const [keywords, origin] = facet.fields;
    assert.equal(facet.fields.length, 2);
    assert.deepEqual(
      [keywords?.field, keywords?.limit, keywords?.sort, keywords?.prefix],
      ["keywords", 5, "index", "Ab"],
    );
    // facet.limit -1 lists every value: by index unless facet.sort says otherwise; mincount is at least 1.
    assert.deepEqual(
      [origin?.field, origin?.limit, origin?.sort, origin?.mincount],
      ["origin", -1, "index", 1],
    );
  });

  it("lower-cases facet.prefix for text fields, whose values are tokens", () => {
    const [title] =
      parse({ facet: "on", "facet.field": "title", "facet.prefix": "Soil" }).facet?.fields ?? [];
    assert.equal(title?.prefix, "soil");
  });

  it("refuses bad facet settings only when faceting is asked for", () => {
    assert.equal(parse({ "facet.field": "nosuch", "facet.limit": "many" }).facet, undefined);
    refuses({ facet: "true", "facet.field": "nosuch" }, /undefined field nosuch/);
    refuses({ facet: "true", "facet.field": "keywords", "f.keywords.facet.limit": "many" }, /not an integer/);
    refuses(
      { facet: "true", "facet.field": "keywords", "facet.sort": "random" },
      /facet.sort must be count or index/,
    );
    refuses({ facet: "true", "facet.field": "keywords", "facet.offset": "-2" }, /out of range/);
  });

  it("reads facet.range with per-field bounds and refuses what cannot be ranged", () => {
    const [range] =
      parse({
        facet: "true",
        "facet.range": "dateUploaded",
        "f.dateUploaded.facet.range.start": "NOW-1YEAR",
        "facet.range.start": "2000-01-01T00:00:00Z",
        "facet.range.end": "NOW",
        "facet.range.gap": "+1MONTH",
      }).facet?.ranges ?? [];
    assert.deepEqual(
      [range?.field, range?.start, range?.end, range?.gap],
      ["dateUploaded", "NOW-1YEAR", "NOW", "+1MONTH"],
    );
    refuses({ facet: "true", "facet.range": "keywords" }, /numeric or date field \(keywords\)/);
    refuses(
      { facet: "true", "facet.range": "size", "facet.range.start": "0", "facet.range.end": "10" },
      /Missing required parameter: f.size.facet.range.gap or facet.range.gap/,
    );
  });

  it("reads stats fields once each and refuses unknown ones", () => {
    assert.deepEqual(
      parse({ stats: "true", "stats.field": ["size", " size", "dateUploaded"] }).stats?.map((s) => s.field),
      ["size", "dateUploaded"],
    );
    refuses({ stats: "true", "stats.field": "nosuch" }, /undefined field nosuch/);
  });

  it("reads grouping, which needs a known group.field", () => {
    assert.deepEqual(
      parse({ group: "true", "group.field": "formatId", "group.limit": "3", "group.ngroups": "true" }).group,
      {
        field: "formatId",
        limit: 3,
        ngroups: true,
      },
    );
    refuses({ group: "true" }, /group=true needs group.field/);
    refuses({ group: "true", "group.field": "nosuch" }, /undefined field nosuch/);
    refuses({ group: "true", "group.field": "formatId", "group.limit": "1001" }, /out of range/);
  });
});
