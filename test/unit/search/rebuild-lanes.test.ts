/**
 * The lanes of a PostgreSQL rebuild's end (rebuild-state.ts, laneOf): each table's statements in one, the key
 * of search_values with its two statements in order, each secondary index of search_values in one of its own,
 * the terms' pending list moved in search_docs' lane.
 * And how the end is told: each statement by the index it builds (indexOf), as `d1node index` prints it.
 */
import assert from "node:assert/strict";
import { it } from "node:test";
import { endText } from "../../../src/cli/folder-commands/search-index.ts";
import { END_STATEMENT } from "../../../src/search/store/pending-terms.ts";
import { indexOf, laneOf } from "../../../src/search/store/rebuild-state.ts";

const STATEMENTS = [
  "create unique index search_values_key on search_values (field, value, pid)",
  "alter table search_values add constraint search_values_key primary key using index search_values_key",
  "CREATE INDEX search_docs_listing ON public.search_docs USING btree (format_type, obsoleted, archived, date_uploaded)",
  'create index "search_docs_uploaded" on "search_docs" ("date_uploaded")',
  "CREATE INDEX search_values_num ON public.search_values USING btree (field, num, pid) WHERE (num IS NOT NULL)",
  END_STATEMENT,
];

it("puts search_values' secondary indexes beside its key, each table's other statements together", () => {
  assert.deepEqual(STATEMENTS.map(laneOf), [
    "search_values",
    "search_values",
    "search_docs",
    "search_docs",
    "search_values_num",
    "search_docs",
  ]);
});

it("names each statement by the index it builds, and tells the end as it goes", () => {
  assert.deepEqual(STATEMENTS.map(indexOf), [
    "search_values_key",
    "search_values_key",
    "search_docs_listing",
    "search_docs_uploaded",
    "search_values_num",
    "search_docs_terms",
  ]);
  assert.equal(endText({ done: 0, total: 5 }), "building 5 search indexes");
  assert.equal(endText({ done: 0, total: 1 }), "building 1 search index");
  assert.equal(
    endText({ done: 2, total: 5, last: { index: "search_values_num", seconds: 81.04 } }),
    "search_values_num built in 81.0 s (2 of 5)",
  );
});
