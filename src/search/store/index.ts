/**
 * The search index's repository on a Database (`searchRepository(db)`, held by the SearchIndex as `db.search`): every read and write of the search tables
 * (`search_docs`, `search_values`, terms, `search_relations`) the search engine (src/search) makes. The
 * conditions it reads by are built by conditions.ts, term-conditions.ts and order-by.ts.
 */

import type { Database } from "../../db/types.ts";
import { changedSince, changePosition } from "./change-positions.ts";
import { fieldStatsRow, forEachTerm, numbersOf, valueCountRows, valueTotalRows } from "./facet-queries.ts";
import { valuesOfField } from "./field-reads.ts";
import {
  noteWrittenElsewhere,
  readScience,
  readStoredDocs,
  removeDocument,
  type SearchDb,
  writeDocument,
  writeDocuments,
  writeRows,
} from "./index-store.ts";
import { documentedAmong, indexedPidsAfter } from "./indexed-pids.ts";
import { conditionKey, matchingAmong, matchingPidChunks, valuesOf } from "./memory-reads.ts";
import { movePendingTerms } from "./pending-terms.ts";
import { beginRebuild, finishRebuild, rebuildProgressed, rebuildState } from "./rebuild-state.ts";
import { packageFields, packageFieldsOfMany, replaceRelations, subjectsOfMap } from "./relations.ts";
import { countMatching, documentCount, groupsOf, holdsAtLeast, pageOfPids } from "./result-queries.ts";

/** What the search engine (src/search) is given of a database. */
export interface SearchEngineDb extends Pick<Database, "dialect" | "indexChanges"> {
  search: SearchRepository;
}

/** What the engine is opened on: a database (its query builder, dialect and change log), or its view of one. */
export type SearchSource = SearchDb | SearchEngineDb;

/** `source` as the engine's view of it. */
export function asEngineDb(source: SearchSource): SearchEngineDb {
  return "search" in source ? source : searchEngineDb(source);
}

/** The engine's view of a database: its search tables' repository, its dialect and its index change log. */
export function searchEngineDb(db: SearchDb): SearchEngineDb {
  return { search: searchRepository(db), dialect: db.dialect, indexChanges: db.indexChanges };
}

/** `f` with its database already given. */
type Bound<F> = F extends (db: never, ...args: infer A) => infer R ? (...args: A) => R : never;

export interface SearchRepository {
  writeDocument: Bound<typeof writeDocument>;
  writeDocuments: Bound<typeof writeDocuments>;
  writeRows: Bound<typeof writeRows>;
  noteWrittenElsewhere: Bound<typeof noteWrittenElsewhere>;
  removeDocument: Bound<typeof removeDocument>;
  readScience: Bound<typeof readScience>;
  readStoredDocs: Bound<typeof readStoredDocs>;
  countMatching: Bound<typeof countMatching>;
  documentCount: Bound<typeof documentCount>;
  pageOfPids: Bound<typeof pageOfPids>;
  groupsOf: Bound<typeof groupsOf>;
  holdsAtLeast: Bound<typeof holdsAtLeast>;
  valueCountRows: Bound<typeof valueCountRows>;
  valueTotalRows: Bound<typeof valueTotalRows>;
  forEachTerm: Bound<typeof forEachTerm>;
  numbersOf: Bound<typeof numbersOf>;
  fieldStatsRow: Bound<typeof fieldStatsRow>;
  conditionKey: Bound<typeof conditionKey>;
  matchingPidChunks: Bound<typeof matchingPidChunks>;
  matchingAmong: Bound<typeof matchingAmong>;
  valuesOf: Bound<typeof valuesOf>;
  valuesOfField: Bound<typeof valuesOfField>;
  changePosition: Bound<typeof changePosition>;
  changedSince: Bound<typeof changedSince>;
  replaceRelations: Bound<typeof replaceRelations>;
  packageFields: Bound<typeof packageFields>;
  packageFieldsOfMany: Bound<typeof packageFieldsOfMany>;
  subjectsOfMap: Bound<typeof subjectsOfMap>;
  documentedAmong: Bound<typeof documentedAmong>;
  indexedPidsAfter: Bound<typeof indexedPidsAfter>;
  rebuildState: Bound<typeof rebuildState>;
  beginRebuild: Bound<typeof beginRebuild>;
  rebuildProgressed: Bound<typeof rebuildProgressed>;
  finishRebuild: Bound<typeof finishRebuild>;
  movePendingTerms: Bound<typeof movePendingTerms>;
}

export function searchRepository(db: SearchDb): SearchRepository {
  return {
    writeDocument: (...args) => writeDocument(db, ...args),
    writeDocuments: (...args) => writeDocuments(db, ...args),
    writeRows: (...args) => writeRows(db, ...args),
    noteWrittenElsewhere: (...args) => noteWrittenElsewhere(db, ...args),
    removeDocument: (...args) => removeDocument(db, ...args),
    readScience: (...args) => readScience(db, ...args),
    readStoredDocs: (...args) => readStoredDocs(db, ...args),
    countMatching: (...args) => countMatching(db, ...args),
    documentCount: () => documentCount(db),
    pageOfPids: (...args) => pageOfPids(db, ...args),
    groupsOf: (...args) => groupsOf(db, ...args),
    holdsAtLeast: (...args) => holdsAtLeast(db, ...args),
    valueCountRows: (...args) => valueCountRows(db, ...args),
    valueTotalRows: (...args) => valueTotalRows(db, ...args),
    forEachTerm: (...args) => forEachTerm(db, ...args),
    numbersOf: (...args) => numbersOf(db, ...args),
    fieldStatsRow: (...args) => fieldStatsRow(db, ...args),
    conditionKey: (...args) => conditionKey(db, ...args),
    matchingPidChunks: (...args) => matchingPidChunks(db, ...args),
    matchingAmong: (...args) => matchingAmong(db, ...args),
    valuesOf: (...args) => valuesOf(db, ...args),
    valuesOfField: (...args) => valuesOfField(db, ...args),
    changePosition: (...args) => changePosition(db, ...args),
    changedSince: (...args) => changedSince(db, ...args),
    replaceRelations: (...args) => replaceRelations(db, ...args),
    packageFields: (...args) => packageFields(db, ...args),
    packageFieldsOfMany: (...args) => packageFieldsOfMany(db, ...args),
    subjectsOfMap: (...args) => subjectsOfMap(db, ...args),
    documentedAmong: (...args) => documentedAmong(db, ...args),
    indexedPidsAfter: (...args) => indexedPidsAfter(db, ...args),
    rebuildState: (...args) => rebuildState(db, ...args),
    beginRebuild: (...args) => beginRebuild(db, ...args),
    rebuildProgressed: (...args) => rebuildProgressed(db, ...args),
    finishRebuild: (...args) => finishRebuild(db, ...args),
    movePendingTerms: () => movePendingTerms(db),
  };
}
