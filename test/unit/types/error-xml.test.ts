import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { InvalidRequest, ServiceFailure } from "../../../src/errors/exceptions.ts";
import { type ErrorDocument, parseError, serializeError } from "../../../src/types/index.ts";
import { validateXml } from "../../helpers/validation/xmllint.ts";
import { sample } from "./fixtures.ts";

const full: ErrorDocument = {
  exception: "NotFound",
  errorCode: 404,
  detailCode: "1020",
  description: 'No object "a&b" <here>\nsecond line',
  pid: "a&b <c>",
  nodeId: "urn:node:TESTMN",
  traceInformation: "at x\r\n\tat y",
};

describe("error documents", () => {
  it("serializes full and minimal errors valid against dataoneErrors.xsd", async () => {
    const xml = serializeError(full);
    assert.match(
      xml,
      /^<\?xml version="1.0" encoding="UTF-8"\?><error name="NotFound" errorCode="404" detailCode="1020" identifier="a&amp;b &lt;c&gt;" nodeId="urn:node:TESTMN"><description>/,
    );
    await validateXml(xml);
    await validateXml(
      serializeError({ exception: "ServiceFailure", errorCode: 500, detailCode: "0", description: "" }),
    );
    await validateXml(serializeError({ ...full, description: "control \u0001 char \ud800 dropped" }));
  });

  it("round-trips", () => {
    assert.deepEqual(parseError(serializeError(full)), full);
    const minimal = { exception: "InvalidToken", errorCode: 401, detailCode: "1050", description: "" };
    assert.deepEqual(parseError(serializeError(minimal)), minimal);
  });

  it("reads the sample, including markup inside traceInformation", () => {
    assert.deepEqual(parseError(sample("error_NotFound.xml")), {
      exception: "NotFound",
      errorCode: 404,
      detailCode: "1020",
      description: "No system metadata could be found for given PID: no-such-pid",
      pid: "no-such-pid",
      nodeId: "urn:node:TESTMN",
      traceInformation: "anything can go here",
    });
    const trace = parseError(
      '<error name="X" errorCode="500" detailCode="0"><traceInformation>a<v>b</v>c</traceInformation></error>',
    );
    assert.equal(trace.traceInformation, "abc");
    assert.equal(trace.description, "");
  });

  it("rejects the invalid sample and other malformed errors, with the exception asked for", () => {
    assert.throws(
      () => parseError(sample("invalid/error_bad.xml")),
      (e: unknown) => e instanceof InvalidRequest && /errorCode/.test(e.description),
    );
    assert.throws(
      () => parseError('<error name="X" errorCode="1"/>', ServiceFailure),
      (e: unknown) => e instanceof ServiceFailure && /detailCode/.test(e.description),
    );
    for (const [xml, pattern] of [
      ['<error errorCode="1" detailCode="0"/>', /name/],
      [
        '<d1:error xmlns:d1="http://ns.dataone.org/service/types/v1" name="X" errorCode="1" detailCode="0"/>',
        /no namespace/,
      ],
      ['<error name="X" errorCode="1" detailCode="0"><other/></error>', /unknown element <other>/],
      ['<error name="X" errorCode="1" detailCode="0" colour="red"/>', /colour/],
      ['<!DOCTYPE error><error name="X" errorCode="1" detailCode="0"/>', /DOCTYPE/],
    ] as const) {
      assert.throws(
        () => parseError(xml),
        (e: unknown) => e instanceof InvalidRequest && pattern.test(e.description),
        xml,
      );
    }
  });
});
