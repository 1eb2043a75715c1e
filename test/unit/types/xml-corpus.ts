/**
 * Documents the XML parser must read exactly as before (test/fixtures/xml-parse-expected.json holds what the
 * earlier fast-xml-parser-based parser made of them): the schema samples, system metadata and log pages carrying
 * the tricky identifiers and unicode strings, hand-written edge cases of the syntax, and documents to refuse.
 */
import { readdirSync, readFileSync } from "node:fs";
import { type D1Error, InvalidRequest } from "../../../src/errors/exceptions.ts";
import { serializeLog } from "../../../src/types/xml-documents/lists-xml.ts";
import { serializeSystemMetadata } from "../../../src/types/xml-documents/sysmeta-xml.ts";
import type { ErrorClass, XmlElement, XmlRoot } from "../../../src/types/xml-parse.ts";
import {
  fullSysmeta,
  minimalSysmeta,
  SCHEMA_SAMPLES,
  sample,
  THIRD_PARTY,
  trickyIdentifiers,
} from "./fixtures.ts";

const V2 = "http://ns.dataone.org/service/types/v2.0";

function unicodeStrings(): string[] {
  return readFileSync(`${THIRD_PARTY}test_unicode_strings.utf8.txt`, "utf8")
    .split("\n")
    .filter((line) => line !== "" && !line.startsWith("#"))
    .map((line) => line.split("\t")[0] ?? "");
}

function logPage(identifiers: readonly string[], texts: readonly string[]): string {
  const items = identifiers.map((identifier, i) => ({
    entryId: String(1000 + i),
    identifier,
    ipAddress: i % 2 ? "2001:db8::1" : "192.0.2.7",
    userAgent: texts[i % texts.length] ?? "",
    subject: `CN=${texts[(i + 1) % texts.length] ?? "x"},DC=dataone,DC=org`,
    event: i % 3 ? "read" : "create",
    dateLogged: new Date(Date.UTC(2024, 0, 2, 3, 4, 5, i)),
    nodeIdentifier: "urn:node:TESTMN",
  }));
  return serializeLog({ start: 0, total: items.length, items }, "v2");
}

/** Well-formed documents (some invalid against the XSD), by name. */
export function wellFormed(): Record<string, string> {
  const docs: Record<string, string> = {};
  for (const name of readdirSync(SCHEMA_SAMPLES).filter((f) => f.endsWith(".xml"))) docs[name] = sample(name);
  for (const name of readdirSync(`${SCHEMA_SAMPLES}invalid`).filter((f) => f.endsWith(".xml")))
    docs[`invalid/${name}`] = sample(`invalid/${name}`);
  const tricky = trickyIdentifiers().map((row) => row.identifier);
  tricky.forEach((identifier, i) => {
    docs[`sysmeta-tricky-${i}`] = serializeSystemMetadata(
      { ...minimalSysmeta(), identifier },
      i % 2 ? "v1" : "v2",
    );
  });
  const strings = unicodeStrings();
  docs["sysmeta-unicode"] = serializeSystemMetadata(
    { ...fullSysmeta(), fileName: strings.join(" "), submitter: strings.slice(0, 5).join("") },
    "v2",
  );
  docs["log-tricky"] = logPage(tricky, strings);
  docs["log-unicode"] = logPage(
    strings.map((s, i) => `id-${i}-${s.replace(/\s/g, "_")}`),
    strings,
  );
  docs["log-v1-whitespace"] = logPage(["a", "b"], ["ua"])
    .replace(V2, "http://ns.dataone.org/service/types/v1")
    .replace(/<logEntry>/g, "\r\n  <logEntry>\r\n\t");
  Object.assign(docs, {
    "entities-and-references": `<?xml version="1.0"?><r xmlns="urn:x" a="&lt;&amp;&gt;&quot;&apos;&#x41;&#66;&#x1F600;"><c>&lt;&#xE9;&#10;&#13;&#9;&amp;amp;</c></r>`,
    "cdata-and-crlf": "<r>a\r\nb\rc<![CDATA[<x>&amp;\r\n]]>d<![CDATA[]]>e</r>",
    "attribute-whitespace": `<r a="1\t2\n3\r\n4" b='  q  ' c="&#9;&#10;&#13;"/>`,
    "comments-and-pis": `\n  <?xml version="1.0" encoding="UTF-8"?>\n<!-- head --><?pi data?><p:r xmlns:p="urn:p"><!-- in --><?x y?>t<c/>u</p:r><!-- tail -->\n<?end?>\n`,
    "bom-and-mixed": `\uFEFF<error name="NotFound" errorCode="404" detailCode="1"><description>No <b>such</b> object &amp; more</description></error>`,
    "empty-and-nested": `<a><b/><b></b><b> </b><c><d><e>deep</e></d></c></a>`,
    "unicode-names": `<données xmlns:é="urn:é"><é:x é:y="ü">ñ</é:x></données>`,
  });
  return docs;
}

/** Documents every parser must refuse, by name. */
export function refused(): Record<string, string> {
  return {
    doctype: '<!DOCTYPE r [<!ENTITY x SYSTEM "file:///etc/passwd">]><r>&x;</r>',
    "undefined-entity": "<r>&nbsp;</r>",
    "nul-reference": "<r>&#0;</r>",
    "surrogate-reference": "<r>&#xD800;</r>",
    "bare-ampersand": "<r>a & b</r>",
    "lt-in-attribute": "<r a='<'/>",
    unbalanced: "<r><c></r>",
    "two-roots": "<r/><s/>",
    "text-after-root": "<r/>tail",
    "text-before-root": "lead<r/>",
    empty: "",
    "not-xml": "not xml",
    truncated: `${serializeSystemMetadata(fullSysmeta(), "v2").slice(0, -5)}`,
    "control-character": "<r>a\u0001</r>",
    "duplicate-attribute": '<r a="1" a="2"/>',
    "unquoted-attribute": "<r a=1/>",
    "undeclared-prefix": "<q:r/>",
    "bad-name": "<1r/>",
    "unterminated-comment": "<r><!-- x</r>",
  };
}

/** The parsers a summary is made with (injected, so that the expected file could be made with the earlier ones). */
export interface Parsers {
  parseXml(xml: string, fail: ErrorClass): XmlRoot;
  typed: Record<string, (xml: string) => unknown>;
}

interface Tree {
  name: string;
  attributes: [string, string][];
  content: (Tree | string)[];
  text: string;
}

function tree(element: XmlElement): Tree {
  return {
    name: element.name,
    attributes: [...element.attributes].sort(([a], [b]) => (a < b ? -1 : 1)),
    // Adjacent character data may come in one piece or several: only the joined text is compared.
    content: element.content
      .map((part) => (typeof part === "string" ? part : tree(part)))
      .reduce<(Tree | string)[]>((parts, part) => {
        const last = parts[parts.length - 1];
        if (typeof part === "string" && typeof last === "string") parts[parts.length - 1] = last + part;
        else parts.push(part);
        return parts;
      }, []),
    text: element.text,
  };
}

const outcome = (run: () => unknown): unknown => {
  try {
    return { value: JSON.parse(JSON.stringify(run())) };
  } catch (error) {
    const { exception, description } = error as Partial<D1Error>;
    return exception ? { refused: exception, description } : { thrown: String(error) };
  }
};

/** What a parser makes of a document: the element tree and the typed value (or the refusal). */
export function summarize(xml: string, parsers: Parsers): unknown {
  let root: XmlRoot;
  try {
    root = parsers.parseXml(xml, InvalidRequest);
  } catch (error) {
    return { refused: (error as Partial<D1Error>).exception ?? String(error) };
  }
  const typed = parsers.typed[root.localName];
  return {
    tree: tree(root),
    localName: root.localName,
    namespace: root.namespace ?? null,
    ...(typed ? { typed: outcome(() => typed(xml)) } : {}),
  };
}
