/**
 * OAI-PMH in tests: requests to a node's repository, and validation of every answer with xmllint against the
 * OAI-PMH 2.0 schema (../shared/standards/oai-pmh/OAI-PMH.xsd beside the checkout). Its `<metadata>` wildcard is
 * strict, so the check loads the schemas of the embedded records too: oai_dc (test/fixtures/oai) and DataCite
 * kernel-4.6 (../shared/standards/datacite). A record in a format whose schema is not at hand offline (EML)
 * is checked with that one wildcard made lax (`embedded: "unchecked"`).
 */
import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { lintAgainst } from "./xmllint.ts";

const STANDARDS = fileURLToPath(new URL("../../../../shared/standards/", import.meta.url));
const FIXTURES = fileURLToPath(new URL("../../fixtures/oai/", import.meta.url));
export const OAI_XSD = `${STANDARDS}oai-pmh/OAI-PMH.xsd`;

let schemas: { strict: string; lax: string } | undefined;

/** The wrapper schemas (made once per process in a temp folder). */
function wrappers(): { strict: string; lax: string } {
  if (schemas) return schemas;
  const dir = mkdtempSync(path.join(tmpdir(), "oai-xsd-"));
  const original = readFileSync(OAI_XSD, "utf8");
  // Only the metadataType wildcard (the one inside <metadata>) becomes lax.
  const metadataType = /(<complexType name="metadataType">[\s\S]*?processContents=")strict(")/;
  assert.match(original, metadataType);
  writeFileSync(path.join(dir, "OAI-PMH-lax.xsd"), original.replace(metadataType, "$1lax$2"));
  const wrapper = (oai: string) =>
    `<?xml version="1.0"?><xs:schema xmlns:xs="http://www.w3.org/2001/XMLSchema">` +
    `<xs:import namespace="http://www.openarchives.org/OAI/2.0/" schemaLocation="${oai}"/>` +
    `<xs:import namespace="http://www.openarchives.org/OAI/2.0/oai_dc/" schemaLocation="${FIXTURES}oai_dc.xsd"/>` +
    `<xs:import namespace="http://datacite.org/schema/kernel-4" schemaLocation="${STANDARDS}datacite/kernel-4.6/metadata.xsd"/>` +
    `</xs:schema>`;
  writeFileSync(path.join(dir, "strict.xsd"), wrapper(OAI_XSD));
  writeFileSync(path.join(dir, "lax.xsd"), wrapper(path.join(dir, "OAI-PMH-lax.xsd")));
  schemas = { strict: path.join(dir, "strict.xsd"), lax: path.join(dir, "lax.xsd") };
  return schemas;
}

export interface OaiCheck {
  /** "unchecked": records in a format without a schema at hand (native EML); default "checked". */
  embedded?: "checked" | "unchecked";
}

/** Throws with xmllint's messages unless the answer is a valid OAI-PMH response. */
export async function validateOai(xml: string, check: OaiCheck = {}): Promise<void> {
  const schema = check.embedded === "unchecked" ? wrappers().lax : wrappers().strict;
  const result = await lintAgainst(xml, schema);
  if (!result.valid)
    throw new Error(`Not a valid OAI-PMH response:\n${result.messages}\n---\n${xml.slice(0, 3000)}`);
}

/** GET {baseUrl}/oai?query, validated; the body. */
export async function oaiGet(baseUrl: string, query: string, check?: OaiCheck): Promise<string> {
  const response = await fetch(`${baseUrl}/oai?${query}`);
  assert.equal(response.status, 200);
  assert.match(response.headers.get("content-type") ?? "", /^text\/xml/);
  const xml = await response.text();
  await validateOai(xml, check);
  return xml;
}

/** POST the arguments as a form, validated; the body. */
export async function oaiPost(
  baseUrl: string,
  form: Record<string, string>,
  check?: OaiCheck,
): Promise<string> {
  const response = await fetch(`${baseUrl}/oai`, { method: "POST", body: new URLSearchParams(form) });
  assert.equal(response.status, 200);
  const xml = await response.text();
  await validateOai(xml, check);
  return xml;
}

/** The error code of an answer, if it is an error. */
export const errorCode = (xml: string) => /<error code="([^"]+)"/.exec(xml)?.[1];

/** Headers of a list or record answer: identifier, deleted, setSpecs. */
export function headersOf(
  xml: string,
): { identifier: string; deleted: boolean; datestamp: string; sets: string[] }[] {
  return [...xml.matchAll(/<header( status="deleted")?>([\s\S]*?)<\/header>/g)].map((m) => ({
    identifier: unescapeXml(/<identifier>([^<]*)<\/identifier>/.exec(m[2] ?? "")?.[1] ?? ""),
    deleted: m[1] !== undefined,
    datestamp: /<datestamp>([^<]*)<\/datestamp>/.exec(m[2] ?? "")?.[1] ?? "",
    sets: [...(m[2] ?? "").matchAll(/<setSpec>([^<]*)<\/setSpec>/g)].map((s) => s[1] ?? ""),
  }));
}

export const tokenOf = (xml: string) => /<resumptionToken[^>]*>([^<]*)<\/resumptionToken>/.exec(xml)?.[1];

function unescapeXml(text: string): string {
  return text
    .replace(/&lt;/g, "<")
    .replace(/&gt;/g, ">")
    .replace(/&quot;/g, '"')
    .replace(/&amp;/g, "&");
}
