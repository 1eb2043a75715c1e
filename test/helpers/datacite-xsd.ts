/** DataCite kernel-4.6 validation with xmllint, against the XSD in the shared standards folder beside the checkout. */
import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";

export const DATACITE_DIR = fileURLToPath(
  new URL("../../../shared/standards/datacite/kernel-4.6/", import.meta.url),
);
const XSD = `${DATACITE_DIR}metadata.xsd`;

/** xmllint's verdict on one record: valid, or its messages. */
export function lintDatacite(xml: string): Promise<{ valid: boolean; messages: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn("xmllint", ["--noout", "--nonet", "--schema", XSD, "-"], {
      stdio: ["pipe", "ignore", "pipe"],
    });
    let stderr = "";
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => {
      stderr += chunk;
    });
    child.on("error", reject);
    child.on("close", (code) => {
      if (code !== 0 && code !== 1 && code !== 3) {
        reject(new Error(`xmllint failed (exit ${code}):\n${stderr}`));
        return;
      }
      resolve({ valid: code === 0, messages: code === 0 ? "" : stderr.replace(/^-:/gm, "line ").trim() });
    });
    child.stdin.on("error", () => {});
    child.stdin.end(xml);
  });
}

/** Throws with xmllint's messages unless the record validates. */
export async function validateDatacite(xml: string): Promise<void> {
  const result = await lintDatacite(xml);
  if (!result.valid) throw new Error(`Not valid DataCite 4.6:\n${result.messages}\n--- record ---\n${xml}`);
}
