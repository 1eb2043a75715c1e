/** DataCite kernel-4.6 validation with xmllint, against the XSD in the shared standards folder beside the checkout. */
import { fileURLToPath } from "node:url";
import { lintAgainst } from "./xmllint.ts";

export const DATACITE_DIR = fileURLToPath(
  new URL("../../../../shared/standards/datacite/kernel-4.6/", import.meta.url),
);
const XSD = `${DATACITE_DIR}metadata.xsd`;

/** xmllint's verdict on one record: valid, or its messages. */
export async function lintDatacite(xml: string): Promise<{ valid: boolean; messages: string }> {
  const result = await lintAgainst(xml, XSD);
  return { valid: result.valid, messages: result.messages.replace(/^-:/gm, "line ") };
}

/** Throws with xmllint's messages unless the record validates. */
export async function validateDatacite(xml: string): Promise<void> {
  const result = await lintDatacite(xml);
  if (!result.valid) throw new Error(`Not valid DataCite 4.6:\n${result.messages}\n--- record ---\n${xml}`);
}
