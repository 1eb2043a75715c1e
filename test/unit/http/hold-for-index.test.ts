/**
 * holdForSubscribers: how much of an uploaded object part is kept for the write's subscribers (the node's: the
 * search index), by the sysmeta part before it.
 */
import assert from "node:assert/strict";
import { it } from "node:test";
import { holdForSubscribers } from "../../../src/http/multipart.ts";
import type { ChangeSubscribers } from "../../../src/objects/changes.ts";
import {
  bytesToHold,
  HELD_DOCUMENT_BYTES,
  HELD_UNKNOWN_BYTES,
} from "../../../src/search/indexing/indexer.ts";

const sysmeta = (formatId: string) =>
  `<d1:systemMetadata xmlns:d1="http://ns.dataone.org/service/types/v2.0"><identifier>x</identifier>` +
  `<formatId> ${formatId} </formatId><size>1</size></d1:systemMetadata>`;

const subscribers: ChangeSubscribers = { recorded: async () => {}, committed: async () => {}, bytesToHold };
const holdForIndex = holdForSubscribers(subscribers);

it("keeps nothing when no subscriber asks", () => {
  const none = holdForSubscribers({ recorded: async () => {}, committed: async () => {} });
  assert.equal(none(new Map()), 0);
});

it("keeps a document of an indexed format, nothing of data, a little while the format is unknown", () => {
  const parts = (xml?: string) => new Map(xml === undefined ? [] : [["sysmeta", xml]]);
  assert.equal(holdForIndex(parts(sysmeta("https://eml.ecoinformatics.org/eml-2.2.0"))), HELD_DOCUMENT_BYTES);
  assert.equal(holdForIndex(parts(sysmeta("http://www.openarchives.org/ore/terms"))), HELD_DOCUMENT_BYTES);
  assert.equal(holdForIndex(parts(sysmeta("text/csv"))), 0);
  assert.equal(holdForIndex(parts()), HELD_UNKNOWN_BYTES);
});
