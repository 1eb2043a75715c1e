/**
 * The saxes-based parser reads every document of the corpus as the earlier fast-xml-parser-based one did (same
 * element tree, same typed values, same refusals), and refuses what is not well-formed with the caller's exception.
 */
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { describe, it } from "node:test";
import { InvalidRequest, InvalidSystemMetadata } from "../../../src/errors/exceptions.ts";
import { parseLog, parseObjectList } from "../../../src/types/xml-documents/lists-xml.ts";
import { parseSystemMetadata } from "../../../src/types/xml-documents/sysmeta-xml.ts";
import { parseXml } from "../../../src/types/xml-parse.ts";
import { refused, summarize, wellFormed } from "./xml-corpus.ts";

const expected = JSON.parse(
  readFileSync(new URL("../../fixtures/xml-parse-expected.json", import.meta.url), "utf8"),
) as Record<string, unknown>;

const parsers = {
  parseXml,
  typed: {
    systemMetadata: parseSystemMetadata,
    log: (xml: string) => parseLog(xml),
    objectList: (xml: string) => parseObjectList(xml),
  },
};

describe("parseXml against the earlier parser's results", () => {
  it("reads every well-formed document of the corpus the same", () => {
    const docs = wellFormed();
    assert.ok(Object.keys(docs).length >= 50);
    for (const [name, xml] of Object.entries(docs)) {
      assert.deepEqual(summarize(xml, parsers), expected[name], name);
    }
  });

  it("refuses the same documents, with the exception the caller names", () => {
    for (const [name, xml] of Object.entries(refused())) {
      assert.deepEqual(summarize(xml, parsers), expected[name], name);
      assert.throws(
        () => parseXml(xml, InvalidSystemMetadata),
        (e: unknown) => e instanceof InvalidSystemMetadata && e.description.length > 0,
        name,
      );
      assert.throws(() => parseSystemMetadata(xml), InvalidSystemMetadata, name);
      assert.throws(() => parseLog(xml), InvalidRequest, name);
    }
  });
});
