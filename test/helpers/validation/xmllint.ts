/**
 * Schema validation with libxml2's xmllint against the official DataONE XSDs in schemas/, offline through
 * schemas/catalog.xml. The XSD is picked from the root element's namespace unless given.
 */
import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";

const SCHEMAS = fileURLToPath(new URL("../../../schemas/", import.meta.url));

export type SchemaFile =
  | "dataoneTypes.xsd"
  | "dataoneTypes_v1.1.xsd"
  | "dataoneTypes_v2.0.xsd"
  | "dataoneErrors.xsd";

const BY_NAMESPACE: Record<string, SchemaFile> = {
  "http://ns.dataone.org/service/types/v1": "dataoneTypes.xsd",
  "http://ns.dataone.org/service/types/v1.1": "dataoneTypes_v1.1.xsd",
  "http://ns.dataone.org/service/types/v2.0": "dataoneTypes_v2.0.xsd",
};

export interface LintResult {
  valid: boolean;
  schema: SchemaFile;
  /** xmllint's messages (stderr), empty when valid. */
  messages: string;
}

/** The XSD for a document: from the root element's namespace; no namespace means dataoneErrors.xsd. */
export function schemaFor(xml: string): SchemaFile {
  const root =
    /<([A-Za-z_][\w.-]*:)?([A-Za-z_][\w.-]*)((?:\s+[^\s=>/]+\s*=\s*(?:"[^"]*"|'[^']*'))*)\s*\/?>/.exec(
      xml.replace(/<\?[\s\S]*?\?>|<!--[\s\S]*?-->/g, ""),
    );
  if (!root) throw new Error("No root element found.");
  const prefix = root[1]?.slice(0, -1);
  const declaration = prefix === undefined ? "xmlns" : `xmlns:${prefix}`;
  const ns = new RegExp(`\\s${declaration.replace(/\./g, "\\.")}\\s*=\\s*["']([^"']*)["']`).exec(
    root[3] ?? "",
  )?.[1];
  if (ns === undefined || ns === "") return "dataoneErrors.xsd";
  const schema = BY_NAMESPACE[ns];
  if (!schema) throw new Error(`No DataONE schema for namespace ${ns}.`);
  return schema;
}

/**
 * xmllint on `xml` against the XSD file at `xsd`: the verdict and messages (never rejects for an invalid
 * document; rejects when xmllint itself fails: exit 0 valid, 3 validation error, 1 parse error, 4/5 schema problems).
 */
export function lintAgainst(
  xml: string,
  xsd: string,
  env: NodeJS.ProcessEnv = process.env,
): Promise<{ valid: boolean; messages: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn("xmllint", ["--noout", "--nonet", "--schema", xsd, "-"], {
      env,
      stdio: ["pipe", "ignore", "pipe"],
    });
    let stderr = "";
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => {
      stderr += chunk;
    });
    child.on("error", reject);
    child.on("close", (code) => {
      if (code !== 0 && code !== 1 && code !== 3) {
        reject(new Error(`xmllint failed (exit ${code}) with ${xsd}:\n${stderr}`));
        return;
      }
      resolve({ valid: code === 0, messages: code === 0 ? "" : stderr.trim() });
    });
    child.stdin.on("error", () => {}); // xmllint may exit before reading everything
    child.stdin.end(xml);
  });
}

/** Run xmllint with a DataONE XSD, offline through schemas/catalog.xml. */
export async function lintXml(xml: string, schema: SchemaFile = schemaFor(xml)): Promise<LintResult> {
  const env = { ...process.env, XML_CATALOG_FILES: `${SCHEMAS}catalog.xml` };
  return { ...(await lintAgainst(xml, `${SCHEMAS}${schema}`, env)), schema };
}

/** Throws with xmllint's messages unless the document is valid. */
export async function validateXml(xml: string, schema?: SchemaFile): Promise<void> {
  const result = await lintXml(xml, schema ?? schemaFor(xml));
  if (!result.valid) {
    throw new Error(
      `Not valid against ${result.schema}:\n${result.messages}\n--- document ---\n${xml.slice(0, 4000)}`,
    );
  }
}

/** Validate several documents (in parallel); throws listing every invalid one. */
export async function validateAll(xmls: readonly string[]): Promise<void> {
  const results = await Promise.all(xmls.map((xml) => lintXml(xml)));
  const failures = results.flatMap((r, i) => (r.valid ? [] : [`#${i} (${r.schema}): ${r.messages}`]));
  if (failures.length > 0) throw new Error(`Invalid documents:\n${failures.join("\n")}`);
}
