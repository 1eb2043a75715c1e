/**
 * The lanes of a PostgreSQL rebuild's end (rebuild-state.ts, laneOf): each table's statements in one, the key
 * of search_values with its two statements in order, each secondary index of search_values in one of its own.
 */
import assert from "node:assert/strict";
import { it } from "node:test";
import { laneOf } from "../../../src/db/search/rebuild-state.ts";

it("puts search_values' secondary indexes beside its key, each table's other statements together", () => {
  const statements = [
    "create unique index search_values_key on search_values (field, value, pid)",
    "alter table search_values add constraint search_values_key primary key using index search_values_key",
    "CREATE INDEX search_docs_listing ON public.search_docs USING btree (format_type, obsoleted, archived, date_uploaded)",
    "CREATE INDEX search_docs_uploaded ON public.search_docs USING btree (date_uploaded)",
    "CREATE INDEX search_values_num ON public.search_values USING btree (field, num, pid) WHERE (num IS NOT NULL)",
  ];
  assert.deepEqual(statements.map(laneOf), [
    "search_values",
    "search_values",
    "search_docs",
    "search_docs",
    "search_values_num",
  ]);
});
