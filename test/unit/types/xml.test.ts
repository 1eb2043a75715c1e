import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { InvalidRequest, InvalidSystemMetadata } from "../../../src/errors/exceptions.ts";
import {
  escapeAttr,
  escapeText,
  formatDateTime,
  hasInvalidXmlChars,
  parseDateTime,
  parseXml,
  stripInvalidXmlChars,
} from "../../../src/types/index.ts";

describe("escaping", () => {
  it("escapes markup characters in text and attributes", () => {
    assert.equal(escapeText(`a & b < c > d "e"`), `a &amp; b &lt; c &gt; d "e"`);
    assert.equal(escapeAttr(`a & "b" <c>`), "a &amp; &quot;b&quot; &lt;c&gt;");
    assert.equal(escapeText("plain ü \u{1F600}"), "plain ü \u{1F600}");
  });

  it("keeps CR, tab and newline through a parse via character references", () => {
    assert.equal(escapeText("a\r\nb\tc"), "a&#13;\nb\tc");
    assert.equal(escapeAttr("a\r\nb\tc"), "a&#13;&#10;b&#9;c");
    const root = parseXml(
      `<a x="${escapeAttr("1\t2\n3\r4")}">${escapeText("l1\r\nl2\rl3")}</a>`,
      InvalidRequest,
    );
    assert.equal(root.attributes.get("x"), "1\t2\n3\r4");
    assert.equal(root.text, "l1\r\nl2\rl3");
  });

  it("drops characters XML 1.0 cannot carry", () => {
    const bad = "a\u0000b\u0001c\u001fd\ud800e\ufffef\uffff";
    assert.ok(hasInvalidXmlChars(bad));
    assert.ok(!hasInvalidXmlChars("ok\t\n\r \u{10FFFF}"));
    assert.equal(stripInvalidXmlChars(bad), "abcdef");
    assert.equal(escapeText(`<${bad}>`), "&lt;abcdef&gt;");
    assert.equal(escapeAttr(bad), "abcdef");
  });
});

describe("parseXml", () => {
  it("decodes predefined entities, character references and CDATA", () => {
    const root = parseXml(
      '<?xml version="1.0"?><!-- c --><p:r xmlns:p="urn:x" a="&lt;&amp;&#x41;&#66;&apos;"><c>x &amp;amp; <![CDATA[<raw>&amp;]]></c></p:r>',
      InvalidRequest,
    );
    assert.equal(root.localName, "r");
    assert.equal(root.namespace, "urn:x");
    assert.equal(root.attributes.get("a"), "<&AB'");
    assert.equal(root.children[0]?.text, "x &amp; <raw>&amp;");
  });

  it("resolves a default namespace and no namespace", () => {
    assert.equal(parseXml('<r xmlns="urn:y"><c/></r>', InvalidRequest).namespace, "urn:y");
    assert.equal(parseXml("<error/>", InvalidRequest).namespace, undefined);
    assert.throws(() => parseXml("<q:r/>", InvalidRequest), /prefix "q"/);
  });

  it("refuses DOCTYPE and entity declarations with the exception the caller names", () => {
    const attacks = [
      '<!DOCTYPE r [<!ENTITY x SYSTEM "file:///etc/passwd">]><r>&x;</r>',
      '<!DOCTYPE r SYSTEM "http://example.org/r.dtd"><r/>',
      '<?xml version="1.0"?>\n<!DOCTYPE r [<!ENTITY a "aaaa"><!ENTITY b "&a;&a;&a;">]><r>&b;</r>',
      "<r><!ENTITY x 'y'></r>",
      "<!doctype r><r/>",
    ];
    for (const xml of attacks) {
      assert.throws(
        () => parseXml(xml, InvalidSystemMetadata),
        (e: unknown) => e instanceof InvalidSystemMetadata && /DOCTYPE/.test(e.description),
      );
      assert.throws(
        () => parseXml(Buffer.from(xml), InvalidRequest),
        (e: unknown) => e instanceof InvalidRequest,
      );
    }
    // Inside comments and CDATA the text is harmless.
    parseXml("<r><!-- <!DOCTYPE x> --><![CDATA[<!DOCTYPE html>]]></r>", InvalidRequest);
  });

  it("refuses undefined entities, bad references and malformed documents", () => {
    for (const xml of [
      "<r>&nbsp;</r>",
      "<r>&#0;</r>",
      "<r>&#xD800;</r>",
      "<r>a & b</r>",
      "<r a='<'/>",
      "<r><c></r>",
      "<r/><s/>",
      "<r/>tail",
      "",
    ]) {
      assert.throws(
        () => parseXml(xml, InvalidRequest),
        (e: unknown) => e instanceof InvalidRequest,
        xml,
      );
    }
  });

  it("reads names such as __proto__ as plain names, touching no prototype", () => {
    const root = parseXml('<__proto__ __proto__="x" polluted="y"><constructor/></__proto__>', InvalidRequest);
    assert.equal(root.name, "__proto__");
    assert.equal(root.attributes.get("__proto__"), "x");
    assert.equal(root.children[0]?.name, "constructor");
    assert.equal(({} as Record<string, unknown>).polluted, undefined);
  });

  it("decodes UTF-8 with a BOM, UTF-16 with a BOM and declared ISO-8859-1; refuses other encodings", () => {
    const text = '<?xml version="1.0"?><r>ü€</r>';
    assert.equal(
      parseXml(Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(text)]), InvalidRequest).text,
      "ü€",
    );
    assert.equal(
      parseXml(Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(text, "utf16le")]), InvalidRequest).text,
      "ü€",
    );
    const latin = Buffer.from('<?xml version="1.0" encoding="ISO-8859-1"?><r>ü</r>', "latin1");
    assert.equal(parseXml(latin, InvalidRequest).text, "ü");
    assert.throws(
      () => parseXml(Buffer.from('<?xml version="1.0" encoding="EBCDIC"?><r/>'), InvalidRequest),
      /EBCDIC/,
    );
    assert.throws(
      () => parseXml(Buffer.from([0x3c, 0x72, 0x3e, 0xc3, 0x28, 0x3c, 0x2f, 0x72, 0x3e]), InvalidRequest),
      /UTF-8/,
    );
  });
});

describe("DateTime", () => {
  it("formats as YYYY-MM-DDTHH:MM:SS.sssZ", () => {
    assert.equal(formatDateTime(new Date(Date.UTC(2024, 0, 2, 3, 4, 5))), "2024-01-02T03:04:05.000Z");
    assert.equal(formatDateTime(new Date("2024-01-02T03:04:05.678+02:00")), "2024-01-02T01:04:05.678Z");
    assert.throws(() => formatDateTime(new Date(Number.NaN)), RangeError);
  });

  it("parses offsets, microseconds and naive (UTC) times to the right instant", () => {
    const cases: [string, string][] = [
      ["2024-01-02T03:04:05Z", "2024-01-02T03:04:05.000Z"],
      ["2024-01-02T03:04:05", "2024-01-02T03:04:05.000Z"],
      ["2024-01-02T03:04:05.123456", "2024-01-02T03:04:05.123Z"],
      ["2024-01-02T03:04:05.123456789Z", "2024-01-02T03:04:05.123Z"],
      ["2024-01-02T03:04:05.9999999+00:00", "2024-01-02T03:04:05.999Z"],
      ["2024-01-02T03:04:05.5+05:30", "2024-01-01T21:34:05.500Z"],
      ["2024-01-02T03:04:05-08:00", "2024-01-02T11:04:05.000Z"],
      ["2024-01-02T03:04:05+0100", "2024-01-02T02:04:05.000Z"],
      ["2024-01-02T03:04:05.1-14:00", "2024-01-02T17:04:05.100Z"],
      ["2024-02-29T23:59:59.999Z", "2024-02-29T23:59:59.999Z"],
      ["2024-12-31T24:00:00Z", "2025-01-01T00:00:00.000Z"],
      ["2024-01-02", "2024-01-02T00:00:00.000Z"],
      ["0001-01-01T00:00:00Z", "0001-01-01T00:00:00.000Z"],
      [" 2024-01-02T03:04:05Z ", "2024-01-02T03:04:05.000Z"],
    ];
    for (const [text, iso] of cases) assert.equal(parseDateTime(text)?.toISOString(), iso, text);
  });

  it("keeps microseconds a text gave, and writes them again", () => {
    const cases: [string, string][] = [
      ["2026-12-05T02:19:01.762874", "2026-12-05T02:19:01.762874Z"],
      ["2026-12-05T02:19:01.7628749Z", "2026-12-05T02:19:01.762874Z"],
      ["2026-12-05T02:19:01.762000", "2026-12-05T02:19:01.762Z"],
      ["2026-12-05T03:19:01.000001+01:00", "2026-12-05T02:19:01.000001Z"],
    ];
    for (const [text, written] of cases)
      assert.equal(formatDateTime(parseDateTime(text) as Date), written, text);
  });

  it("returns undefined for invalid dates", () => {
    for (const text of [
      "",
      "yesterday",
      "2024-13-01T00:00:00Z",
      "2023-02-29T00:00:00Z",
      "2024-01-32",
      "2024-01-02T25:00:00Z",
      "2024-01-02T24:00:01Z",
      "2024-01-02T23:60:00Z",
      "2024-01-02T23:59:60Z",
      "2024-01-02T03:04:05+15:00",
      "2024-01-02T03:04:05+01:75",
      "2024-01-02T03:04:05.Z",
      "0000-01-01T00:00:00Z",
      "24-01-02T03:04:05Z",
      "1704164645",
    ]) {
      assert.equal(parseDateTime(text), undefined, text);
    }
  });

  it("xsd mode needs the full xs:dateTime form", () => {
    assert.ok(parseDateTime("2024-01-02T03:04:05.1+01:00", { xsd: true }));
    for (const text of [
      "2024-01-02",
      "2024-01-02 03:04:05Z",
      "2024-01-02T03:04Z",
      "2024-01-02T03:04:05+0100",
    ]) {
      assert.equal(parseDateTime(text, { xsd: true }), undefined, text);
    }
  });
});
