/**
 * 0009-search-speed: text fields leave search_values for one row of terms per document (src/search/schema/terms.ts):
 * the FTS5 table search_terms on SQLite (rowid = search_docs.term_id), a GIN-indexed text[] column
 * search_docs.terms on PostgreSQL. search_docs gains format_id (wildcard formatId filters without a scan of
 * search_values) and a covering index of the filter columns. Existing documents are moved over from their
 * search_values rows.
 */
import { sql } from "kysely";
import type { Migration, MigrationDb } from "../../../db/migrations/migration.ts";

/**
 * The index's text fields when this migration was written (src/search/schema/fields.ts then): the fixed ones, and the
 * dynamic fields by suffix ("*_tm", "*_txt", "*_t"). No fixed field of another type ends with these suffixes.
 */
const TEXT_FIELDS: ReadonlySet<string> = new Set([
  "identifier",
  "abstract",
  "keywordsText",
  "title",
  "investigatorText",
  "originText",
  "originatorText",
  "purpose",
  "edition",
  "placeKey",
  "attributeDescription",
  "attribute",
  "contactOrganizationText",
  "gcmdKeyword",
  "projectText",
  "fundingText",
  "siteText",
  "parameterText",
  "serviceTitle",
  "serviceDescription",
  "text",
  ...[1, 2, 3, 4, 5, 6, 7, 8, 9].map((n) => `geohash_${n}`),
]);
const TEXT_SUFFIXES = ["_tm", "_txt", "_t"];

const isTextField = (name: string) =>
  TEXT_FIELDS.has(name) ||
  TEXT_SUFFIXES.some((suffix) => name.length > suffix.length && name.endsWith(suffix));

export const searchSpeedMigration: Migration = {
  name: "0009-search-speed",
  async up(db, dialect) {
    const textFields = await indexedTextFields(db);
    await db.schema.alterTable("search_docs").addColumn("format_id", "text").execute();
    await sql`update search_docs set format_id = (select v.value from search_values v
      where v.pid = search_docs.pid and v.field = 'formatId')`.execute(db);
    const fields = textFields.length > 0 ? sql.join(textFields) : sql`null`;
    if (dialect === "postgres") {
      await sql`alter table search_docs add column terms text[] not null default '{}'`.execute(db);
      await sql`update search_docs d set terms = t.terms from (
          select pid, array_agg(term) as terms from (
            select pid, lower(field) || '__' || value as term from search_values where field in (${fields})
            union
            select pid, lower(field) || '__' from search_values where field in (${fields})
          ) as all_terms group by pid
        ) as t where t.pid = d.pid`.execute(db);
      await sql`create index search_docs_terms on search_docs using gin (terms)`.execute(db);
      // Facets read a matching document's values from this index alone (SQLite's (pid, field) index of a
      // WITHOUT ROWID table holds the value already).
      await sql`drop index search_values_pid`.execute(db);
      await sql`create index search_values_pid on search_values (pid, field, value)`.execute(db);
    } else {
      await sql`alter table search_docs add column term_id integer`.execute(db);
      await sql`update search_docs set term_id = rowid`.execute(db);
      await sql`create unique index search_docs_term on search_docs (term_id)`.execute(db);
      await sql`create virtual table search_terms using fts5(terms,
        tokenize = "unicode61 remove_diacritics 0 tokenchars '_'", detail = none)`.execute(db);
      await sql`create virtual table search_terms_vocab using fts5vocab(search_terms, row)`.execute(db);
      await sql`insert into search_terms (rowid, terms)
        select d.term_id, t.terms from search_docs d join (
          select pid, group_concat(term, ' ') as terms from (
            select pid, lower(field) || '__' || value as term from search_values where field in (${fields})
            union
            select pid, lower(field) || '__' from search_values where field in (${fields})
          ) group by pid
        ) as t on t.pid = d.pid`.execute(db);
    }
    await sql`delete from search_values where field in (${fields})`.execute(db);
    // Filters and the page order read these without visiting the rows (whose stored JSON comes first).
    await db.schema
      .createIndex("search_docs_filter")
      .on("search_docs")
      .columns(["pid", "date_uploaded", "format_type", "format_id", "obsoleted", "archived", "is_public"])
      .execute();
  },
};

/** The text fields that have rows in search_values (a skip over the (field, value, pid) key). */
async function indexedTextFields(db: MigrationDb): Promise<string[]> {
  const out: string[] = [];
  let after = "";
  for (;;) {
    const row = await db
      .selectFrom("search_values")
      .select("field")
      .where("field", ">", after)
      .orderBy("field")
      .limit(1)
      .executeTakeFirst();
    if (!row) return out;
    if (isTextField(row.field)) out.push(row.field);
    after = row.field;
  }
}
