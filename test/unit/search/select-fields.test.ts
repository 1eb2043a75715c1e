/** fl and dataUrl: the fields a document shows (src/search/query/select-fields.ts, src/search/schema/data-url.ts). */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { fieldList, selectFields } from "../../../src/search/query/select-fields.ts";

const links = { dataUrlPrefix: "https://mn.example.org/mn/v2/object/" };
const doc = { id: "doi:10.5063/F1/x?y#z&w=1 é", size: 3, formatId: "text/csv" };
const url = `https://mn.example.org/mn/v2/object/${encodeURIComponent(doc.id)}`;

describe("selectFields", () => {
  it("adds dataUrl, the percent-encoded PID after the links' prefix, to every stored field (fl=*)", () => {
    assert.deepEqual(selectFields(fieldList(undefined), links)(doc), { ...doc, dataUrl: url });
    assert.deepEqual(selectFields(fieldList("*,score"), links)(doc), { ...doc, dataUrl: url });
  });

  it("shows dataUrl where fl names it, under an alias too, and nothing else", () => {
    assert.deepEqual(selectFields(fieldList("id,dataUrl"), links)(doc), { id: doc.id, dataUrl: url });
    assert.deepEqual(selectFields(fieldList("size url:dataUrl"), links)(doc), { size: 3, url });
    assert.deepEqual(selectFields(fieldList("size"), links)(doc), { size: 3 });
  });

  it("without links (or a document without a PID) there is no dataUrl", () => {
    assert.deepEqual(selectFields(fieldList(undefined))(doc), doc);
    assert.deepEqual(selectFields(fieldList("id,dataUrl"))(doc), { id: doc.id });
    assert.deepEqual(selectFields(fieldList("dataUrl"), links)({ size: 1 }), {});
  });
});
