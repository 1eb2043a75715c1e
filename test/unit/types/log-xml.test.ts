/** The log reader that builds entries straight from the parser's events refuses every XSD violation by name. */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { InvalidRequest } from "../../../src/errors/exceptions.ts";
import { parseLog, serializeLog } from "../../../src/types/xml-documents/lists-xml.ts";

const entry = {
  entryId: "7",
  identifier: "pid-1",
  ipAddress: "192.0.2.7",
  userAgent: "curl/8",
  subject: "CN=me",
  event: "read",
  dateLogged: new Date("2024-01-02T03:04:05.678Z"),
  nodeIdentifier: "urn:node:MN",
};
const good = serializeLog({ start: 3, total: 10, items: [entry, { ...entry, entryId: "8" }] }, "v2");

function refuses(xml: string, pattern: RegExp): void {
  assert.throws(
    () => parseLog(xml),
    (e: unknown) => e instanceof InvalidRequest && pattern.test(e.description),
    `${pattern} for ${xml.slice(0, 300)}`,
  );
}

describe("parseLog", () => {
  it("reads the entries and the slice", () => {
    const page = parseLog(Buffer.from(good));
    assert.deepEqual(page, { start: 3, total: 10, items: [entry, { ...entry, entryId: "8" }] });
    assert.deepEqual(
      parseLog(good.replace(/<logEntry>.*<\/logEntry>/s, "").replace('count="2"', 'count="0"')),
      {
        start: 3,
        total: 10,
        items: [],
      },
    );
  });

  it("refuses documents that break the Log and LogEntry types, naming the element at fault", () => {
    refuses(good.replace("<ipAddress>192.0.2.7</ipAddress>", ""), /missing the required element <ipAddress>/);
    refuses(
      good.replace("<subject>CN=me</subject>", "<subject>CN=me</subject><subject>x</subject>"),
      /subject/,
    );
    refuses(good.replace("<userAgent>", "<extra/><userAgent>"), /unknown element <extra>/);
    refuses(good.replace("<logEntry>", "<logEntry kind='x'>"), /unknown attribute "kind"/);
    refuses(good.replace("<entryId>7", "<entryId><b/>7"), /text only/);
    refuses(good.replace("<logEntry>", "<logEntry>stray"), /only contain elements/);
    refuses(good.replace("<logEntry>", "<other/><logEntry>"), /<log> has an unknown element <other>/);
    refuses(good.replace('count="2"', 'count="3"'), /count is 3/);
    refuses(good.replace(' total="10"', ""), /attribute "total"/);
    refuses(good.replace("<subject>CN=me</subject>", "<subject> </subject>"), /subject> must not be empty/);
    refuses(
      good.replace("<identifier>pid-1", "<identifier>pid 1"),
      /identifier> must not contain whitespace/,
    );
    refuses(good.replace("2024-01-02T03:04:05.678Z", "yesterday"), /dateLogged> must be an xs:dateTime/);
    refuses(good.replace(/v2\.0/g, "v9"), /Expected a <log> document/);
    refuses(
      good.replace("types/v2.0", "types/v1").replace("<event>read", "<event>archive"),
      /event> must be one of/,
    );
    refuses(good.slice(0, -8), /well-formed/);
    refuses(good.replace("<userAgent>curl/8", "<userAgent>&bogus;"), /reference "&bogus;"/);
  });
});
