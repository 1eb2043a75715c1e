/**
 * Objects a Coordinating Node knows by system metadata alone (content key "", NO_BYTES) on both dialects: the
 * start-up catch-up (`indexMissing`) and the write hooks index their system metadata and access fields and never
 * ask the store for bytes, whatever their format (science metadata, resource map, data).
 */
import assert from "node:assert/strict";
import { before, describe, it } from "node:test";
import { loadFormatRegistry } from "../../../src/context/formats.ts";
import type { Database } from "../../../src/db/types.ts";
import { search } from "../../../src/search/answers/search.ts";
import { indexNewObject, indexSysmetaChange } from "../../../src/search/indexing/hooks.ts";
import { indexMissing } from "../../../src/search/indexing/reindex.ts";
import { SolrParams } from "../../../src/search/query/params.ts";
import { parseSearchRequest } from "../../../src/search/query/parse-request.ts";
import { NO_BYTES } from "../../../src/services/cn/core.ts";
import type { ObjectStore } from "../../../src/store/types.ts";
import { storedObject } from "../../helpers/data/sysmeta.ts";
import { forEachDialect } from "../../helpers/db/databases.ts";
import { searchIndexOf } from "../../helpers/db/search-index.ts";

const EML = "https://eml.ecoinformatics.org/eml-2.2.0";
const ORE = "http://www.openarchives.org/ore/terms";
const formats = loadFormatRegistry();

/** A store that fails the test on any use: NO_BYTES objects have nothing in it. */
function untouchableStore(used: string[]): ObjectStore {
  return new Proxy({} as ObjectStore, {
    get(_target, name) {
      return (...args: unknown[]) => {
        used.push(`${String(name)}(${JSON.stringify(args[0])})`);
        throw new Error(`The store was asked for ${String(name)}.`);
      };
    },
  });
}

forEachDialect((dialect, open) => {
  describe(`index of objects without bytes (${dialect})`, () => {
    let db: Database;
    const used: string[] = [];
    const ctx = () => ({ db, store: untouchableStore(used), formats });
    const find = async (q: string) => {
      const result = await search(
        searchIndexOf(db),
        parseSearchRequest(SolrParams.from({ q, fl: "*" })),
        "all",
      );
      return result.docs;
    };
    before(async () => {
      db = await open();
    });

    it("indexMissing indexes them by system metadata without reading bytes", async () => {
      const objects = [
        storedObject("nb-eml", { formatId: EML, size: 2000 }),
        storedObject("nb-map", { formatId: ORE, size: 900 }),
        storedObject("nb-data", { formatId: "text/csv", fileName: "d.csv" }),
      ];
      for (const object of objects) await db.objects.insert({ ...object, contentKey: NO_BYTES });
      assert.equal(await indexMissing(ctx()), 3);
      assert.deepEqual(used, []);
      const [eml] = await find("id:nb-eml");
      assert.equal(eml?.formatType, "METADATA");
      assert.equal(eml?.formatId, EML);
      assert.equal(eml?.title, undefined);
      assert.deepEqual(eml?.readPermission, ["public"]);
      assert.equal((await find("id:nb-map"))[0]?.formatType, "RESOURCE");
      assert.equal((await find("fileName:d.csv"))[0]?.id, "nb-data");
      assert.equal(await indexMissing(ctx()), 0);
    });

    it("the write hooks do the same; a format change is indexed without reading bytes", async () => {
      const object = storedObject("nb-hook", { formatId: "text/csv" });
      await db.objects.insert({ ...object, contentKey: NO_BYTES });
      await indexNewObject(ctx(), "nb-hook");
      const changed = { ...object.sysmeta, formatId: EML, serialVersion: 2, archived: true };
      await db.objects.replaceSysmeta(changed, 1);
      await indexSysmetaChange(ctx(), "nb-hook");
      assert.deepEqual(used, []);
      assert.deepEqual(await find("id:nb-hook"), []);
      const [doc] = await find("id:nb-hook AND archived:true");
      assert.equal(doc?.formatId, EML);
      assert.equal(doc?.formatType, "METADATA");
    });
  });
});
