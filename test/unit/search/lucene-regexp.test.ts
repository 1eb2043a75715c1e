/**
 * Lucene's regular expression syntax as translated for PostgreSQL and SQLite (compiled here as JavaScript, which
 * reads the same source), and slashes read as Solr's query grammar reads them.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { compiledRegexp } from "../../../src/db/sqlite-regexp.ts";
import { luceneRegexpSource } from "../../../src/search/query/lucene-regexp.ts";
import { prepareQuery } from "../../../src/search/query/query-slashes.ts";

const matches = (regexp: string, value: string) => compiledRegexp(luceneRegexpSource(regexp)).test(value);

describe("Lucene regular expressions", () => {
  const cases: [string, string, boolean][] = [
    ["ab.*", "abc", true],
    ["ab", "abc", false], // anchored to the whole value
    ["a[0-9]{2,3}", "a123", true],
    ["a[0-9]{2,3}", "a1234", false],
    ["a[^b]c", "abc", false],
    ["a[^b]c", "axc", true],
    ['"a.b"@', "a.bzz", true],
    ['"a.b"', "axb", false],
    ["(foo|bar)+", "foobarfoo", true],
    ["^x$", "^x$", true], // no anchors in Lucene: literal characters
    ["a\\.b", "a.b", true],
    ["a\\.b", "axb", false],
    ["#", "", false],
    ["()", "", true],
    ["a**", "aaa", true],
    ["Ä.ß", "Äxß", true],
    [".", "😀", true], // one code point
    ["[a\\-z]", "-", true],
    ["[a\\-z]", "m", false],
  ];
  for (const [regexp, value, expected] of cases) {
    it(`/${regexp}/ ${expected ? "matches" : "does not match"} "${value}"`, () => {
      assert.equal(matches(regexp, value), expected);
    });
  }

  it("refuses what PostgreSQL and JavaScript cannot express, and malformed expressions", () => {
    for (const bad of [
      "a&b",
      "~a",
      "<1-5>",
      "a(b",
      "a)b",
      "[ab",
      "[]",
      "*a",
      "a{x}",
      "a{3,1}",
      "[z-a]",
      "a\\",
    ]) {
      assert.throws(() => luceneRegexpSource(bad), { name: "InvalidRequest" }, bad);
    }
  });
});

describe("slashes in query text", () => {
  it("a slash inside a term is part of it; a term starting with a slash is a regular expression", () => {
    const prepared = prepareQuery("-formatId:*dataone.org/portals* AND id:/a\\/b.*/ NOW/DAY");
    assert.match(prepared.text, /^-formatId:\*dataone\.org\\\/portals\* AND id:\uE0000\uE000 NOW\\\/DAY$/);
    assert.deepEqual([...prepared.regexes.values()], ["a\\/b.*"]);
  });

  it("slashes inside ranges and quotes are not regular expressions", () => {
    const prepared = prepareQuery('dateUploaded:[* TO NOW/DAY] title:"a/b"');
    assert.equal(prepared.text, 'dateUploaded:[* TO NOW\\/DAY] title:"a/b"');
    assert.equal(prepared.regexes.size, 0);
  });
});
