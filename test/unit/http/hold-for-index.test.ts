/** holdForIndex: how much of an uploaded object part is kept for the search index, by the sysmeta part before it. */
import assert from "node:assert/strict";
import { it } from "node:test";
import { holdForIndex } from "../../../src/http/multipart.ts";
import { HELD_DOCUMENT_BYTES, HELD_UNKNOWN_BYTES } from "../../../src/search/indexing/indexer.ts";

const sysmeta = (formatId: string) =>
  `<d1:systemMetadata xmlns:d1="http://ns.dataone.org/service/types/v2.0"><identifier>x</identifier>` +
  `<formatId> ${formatId} </formatId><size>1</size></d1:systemMetadata>`;

it("keeps a document of an indexed format, nothing of data, a little while the format is unknown", () => {
  const parts = (xml?: string) => new Map(xml === undefined ? [] : [["sysmeta", xml]]);
  assert.equal(holdForIndex(parts(sysmeta("https://eml.ecoinformatics.org/eml-2.2.0"))), HELD_DOCUMENT_BYTES);
  assert.equal(holdForIndex(parts(sysmeta("http://www.openarchives.org/ore/terms"))), HELD_DOCUMENT_BYTES);
  assert.equal(holdForIndex(parts(sysmeta("text/csv"))), 0);
  assert.equal(holdForIndex(parts()), HELD_UNKNOWN_BYTES);
});
