/** OAI-PMH's pure parts: argument rules, dates, set specs, resumption tokens and embedded documents. */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { formatOaiDate, parseOaiDate } from "../../../src/oai/dates.ts";
import { embeddable } from "../../../src/oai/embedded-xml.ts";
import { OaiError } from "../../../src/oai/errors.ts";
import { parseOaiRequest } from "../../../src/oai/request.ts";
import { escapeSetPart, unescapeSetPart } from "../../../src/oai/sets.ts";
import { decodeToken, encodeToken, type ListToken } from "../../../src/oai/tokens.ts";

const codeOf = (work: () => unknown) => {
  try {
    work();
  } catch (error) {
    return error instanceof OaiError ? error.code : String(error);
  }
  return undefined;
};

describe("OAI-PMH protocol parts", () => {
  it("checks arguments per verb", () => {
    const parse = (query: string) => () => parseOaiRequest(new URLSearchParams(query));
    assert.deepEqual(
      parseOaiRequest(new URLSearchParams("verb=GetRecord&identifier=a&metadataPrefix=oai_dc")),
      {
        verb: "GetRecord",
        args: { identifier: "a", metadataPrefix: "oai_dc" },
      },
    );
    assert.equal(codeOf(parse("verb=ListSets&set=a")), "badArgument");
    assert.equal(codeOf(parse("verb=ListRecords&metadataPrefix=a%20b")), "badArgument");
    assert.equal(codeOf(parse("verb=GetRecord&identifier=a")), "badArgument");
    assert.equal(codeOf(parse("verb=identify")), "badVerb");
    assert.equal(codeOf(parse("verb=ListIdentifiers&resumptionToken=x")), undefined);
  });

  it("reads dates at either granularity, inclusive of the whole second or day", () => {
    assert.deepEqual(parseOaiDate("from", "2026-03-01"), {
      start: Date.UTC(2026, 2, 1),
      end: Date.UTC(2026, 2, 2),
      granularity: "day",
    });
    assert.equal(parseOaiDate("until", "2026-03-01T10:00:59Z").end, Date.UTC(2026, 2, 1, 10, 1, 0));
    assert.equal(
      codeOf(() => parseOaiDate("from", "2026-13-01")),
      "badArgument",
    );
    assert.equal(
      codeOf(() => parseOaiDate("from", "2026-03-01T10:00:00.5Z")),
      "badArgument",
    );
    assert.equal(formatOaiDate(Date.UTC(2026, 2, 1, 10, 0, 0, 999)), "2026-03-01T10:00:00Z");
  });

  it("escapes any PID into a setSpec and back", () => {
    for (const pid of ["doi:10.5063/F1", "urn:uuid:1-2", "a~b", "Zürich", "x y"]) {
      const part = escapeSetPart(pid);
      assert.match(part, /^[A-Za-z0-9\-_.!~*'()]+$/);
      assert.equal(unescapeSetPart(part), pid);
    }
    assert.equal(unescapeSetPart("a~zz"), undefined);
    assert.equal(unescapeSetPart("~61"), undefined, "one spelling per PID");
  });

  it("round-trips a token and refuses others", () => {
    const token: ListToken = {
      kind: "ListRecords",
      metadataPrefix: "oai_dc",
      set: "formatType:DATA",
      from: 1000,
      until: 2000,
      after: [1500, "pid/é"],
      cursor: 100,
      completeListSize: 250,
      expires: 10_000,
    };
    assert.deepEqual(decodeToken(encodeToken(token), "ListRecords", 5000), token);
    assert.equal(
      codeOf(() => decodeToken(encodeToken(token), "ListRecords", 10_000)),
      "badResumptionToken",
    );
    assert.equal(
      codeOf(() => decodeToken(encodeToken(token), "ListIdentifiers", 0)),
      "badResumptionToken",
    );
    assert.equal(
      codeOf(() => decodeToken(Buffer.from("[1,2]").toString("base64url"), "ListSets", 0)),
      "badResumptionToken",
    );
  });

  it("embeds a document without its declaration, and not one with a DOCTYPE", () => {
    assert.equal(
      embeddable(Buffer.from('<?xml version="1.0" encoding="UTF-8"?>\n<!-- c --><a:b xmlns:a="x"/>\n')),
      '<a:b xmlns:a="x"/>',
    );
    assert.equal(
      embeddable(Buffer.from('<?xml version="1.0"?><!DOCTYPE b [<!ENTITY e "x">]><b>&e;</b>')),
      undefined,
    );
    assert.equal(embeddable(Buffer.from('<?xml version="1.0" encoding="ISO-8859-1"?><b/>')), undefined);
  });
});
