/**
 * A search index that exists only as arithmetic, for timing the engine's memory (src/search/memory) without a
 * database: document n is `bench.n.1` with the facet fields the search-scale load gives an EML document
 * (keywords, origin, genus, species, site from the corpus's vocabularies; no family, kingdom, phylum, order,
 * class), dateUploaded n minutes after 2010, every tenth document obsoleted, all public. The engine asks it
 * what it would ask the database: a field's values in chunks, the documents a condition matches (told apart by
 * their SQL), the values of rewritten documents. `rewrite(n)` changes document n's dateUploaded, as the
 * search-scale section's writes do.
 */
import { DummyDriver, Kysely, PostgresAdapter, PostgresIntrospector, PostgresQueryCompiler } from "kysely";
import { IndexChangeLog } from "../../../src/db/index-changes.ts";
import type { Tables } from "../../../src/db/schema.ts";
import type { SearchIndexHandle } from "../../../src/search/answers/search.ts";
import type { Condition } from "../../../src/search/query/query-sql.ts";
import { fieldSpec } from "../../../src/search/schema/fields.ts";
import { indexedText } from "../../../src/search/schema/index-rows.ts";
import type { FieldValueRow } from "../../../src/search/store/memory-reads.ts";
import { conditionKey } from "../../../src/search/store/memory-reads.ts";
import { GENERA, GIVEN, KEYWORDS, ORGS, pick, random, SPECIES, SURNAMES, siteOf } from "./eml-corpus.ts";

const CHUNK = 100_000;
const MINUTE = 60_000;
const UPLOADED_FROM = Date.UTC(2010, 0, 1);
const FIELDS = ["keywords", "origin", "genus", "species", "site", "dateUploaded"] as const;

interface Value {
  value: string;
  num: number | null;
}

/** Document n's values of `field` (as the index writer would have them), at its `variant`-th rewrite. */
function valuesOf(field: string, n: number, variant: number): Value[] {
  const rand = random(n * 16 + FIELDS.indexOf(field as (typeof FIELDS)[number]) + 1);
  const text = (value: string) => ({ value, num: null });
  switch (field) {
    case "keywords":
      return [...new Set(Array.from({ length: 3 + Math.floor(rand() * 5) }, () => pick(rand, KEYWORDS)))].map(
        text,
      );
    case "origin": {
      const people = Array.from({ length: 1 + Math.floor(rand() * 3) }, () => ({
        given: pick(rand, GIVEN),
        sur: pick(rand, SURNAMES),
      }));
      return [...new Set([...people.map((p) => `${p.given} ${p.sur}`), pick(rand, ORGS)])].map(text);
    }
    case "genus":
      return [text(pick(rand, GENERA))];
    case "species":
      return [text(pick(rand, SPECIES))];
    case "site":
      return [text(siteOf(rand))];
    case "dateUploaded": {
      const num = UPLOADED_FROM + (n + variant) * MINUTE;
      return [
        {
          value: indexedText(fieldSpec("dateUploaded") as NonNullable<ReturnType<typeof fieldSpec>>, num),
          num,
        },
      ];
    }
    default:
      return [];
  }
}

/**
 * A chunk as the engine gets it from the database: parsed from its row's JSON, so its strings are flat as the
 * driver's are (not the concatenations the arithmetic makes, which V8 keeps as trees and JSON.stringify walks).
 */
const asRead = <T>(chunk: T): T => JSON.parse(JSON.stringify(chunk));

const pidOf = (n: number) => `bench.${n}.1`;
const numberOf = (pid: string) => Number(pid.split(".")[1]);

export class SyntheticSearchIndex {
  readonly changes = new IndexChangeLog();
  private readonly variants = new Map<number, number>();
  private readonly compiler = new Kysely<Tables>({
    dialect: {
      createAdapter: () => new PostgresAdapter(),
      createDriver: () => new DummyDriver(),
      createIntrospector: (db) => new PostgresIntrospector(db),
      createQueryCompiler: () => new PostgresQueryCompiler(),
    },
  });

  constructor(readonly size: number) {}

  /** Rewrites document n (a new dateUploaded) and notes it in the change log, as an index write does. */
  rewrite(n: number): void {
    this.variants.set(n, (this.variants.get(n) ?? 0) + 1);
    this.changes.note([pidOf(n)]);
  }

  /** The index as a search reads it. */
  handle(): SearchIndexHandle {
    const keyDb = { kysely: this.compiler, dialect: "postgres" as const, indexChanges: this.changes };
    const key = (condition: Condition) => conditionKey(keyDb, condition);
    const matching = (sqlKey: string, ns: number[]) => this.matching(sqlKey, ns);
    const all = () => this.all();
    const search = {
      conditionKey: key,
      matchingPidChunks: async function* (condition: Condition, chunk = CHUNK) {
        const pids = matching(key(condition), all());
        for (let at = 0; at < pids.length; at += chunk) yield asRead(pids.slice(at, at + chunk));
      },
      matchingAmong: async (pids: string[], condition: Condition) =>
        this.matching(key(condition), pids.map(numberOf)),
      valuesOfField: (field: string) => this.chunks(field),
      valuesOf: async (pids: string[], fields: string[]) => {
        const rows: FieldValueRow[] = [];
        for (const pid of pids)
          for (const field of fields)
            for (const { value, num } of this.values(field, numberOf(pid)))
              rows.push({ pid, field, value, num });
        return rows;
      },
      readStoredDocs: async (pids: string[]) => new Map(pids.map((pid) => [pid, { id: pid }])),
    };
    const db = { search, dialect: "postgres", indexChanges: this.changes };
    return { db, dialect: "postgres" } as unknown as SearchIndexHandle;
  }

  private values(field: string, n: number): Value[] {
    return valuesOf(field, n, this.variants.get(n) ?? 0);
  }

  private all(): number[] {
    return Array.from({ length: this.size }, (_, n) => n);
  }

  /** The PIDs among documents `ns` a condition matches: the catalog filter leaves out the obsoleted. */
  private matching(sqlKey: string, ns: number[]): string[] {
    const catalog = sqlKey.includes("obsoleted");
    return ns.filter((n) => !catalog || n % 10 !== 9).map(pidOf);
  }

  private async *chunks(field: string) {
    let chunk = { pids: [] as string[], values: [] as string[], nums: [] as (number | null)[] };
    for (let n = 0; n < this.size; n++) {
      for (const { value, num } of this.values(field, n)) {
        chunk.pids.push(pidOf(n));
        chunk.values.push(value);
        chunk.nums.push(num);
      }
      if (chunk.pids.length >= CHUNK) {
        yield asRead(chunk);
        chunk = { pids: [], values: [], nums: [] };
      }
    }
    yield asRead(chunk);
  }
}
