/**
 * SHACL validation of JSON-LD against the science-on-schema.org shapes beside the checkout
 * (../shared/standards/soso): the data parsed to RDF with a JSON-LD parser (its context inline, nothing fetched),
 * the shapes from Turtle, checked by rdf-validate-shacl.
 */
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import rdf from "@zazuko/env";
import { JsonLdParser } from "jsonld-streaming-parser";
import { Parser } from "n3";
import SHACLValidator from "rdf-validate-shacl";

export const SOSO_DIR = fileURLToPath(new URL("../../../../shared/standards/soso/", import.meta.url));

export interface ShaclFinding {
  severity: string;
  path: string;
  message: string;
}

function shapes(name: string) {
  const text = readFileSync(`${SOSO_DIR}${name}`, "utf8");
  return rdf.dataset(new Parser({ format: "text/turtle" }).parse(text));
}

async function jsonLdDataset(data: unknown) {
  const parser = new JsonLdParser({ strictValues: true });
  const quads: import("@rdfjs/types").Quad[] = [];
  const done = new Promise<void>((resolve, reject) => {
    parser.on("data", (quad) => quads.push(quad));
    parser.on("error", reject);
    parser.on("end", resolve);
  });
  parser.end(JSON.stringify(data));
  await done;
  return rdf.dataset(quads);
}

/** The violations and warnings of `data` against the shapes file `shapesFile` (e.g. "googleRequired.ttl"). */
export async function shaclFindings(data: unknown, shapesFile: string): Promise<ShaclFinding[]> {
  // Each file is checked on its own: what it imports (googleRequired's schema.org ontology) adds no constraint.
  const validator = new SHACLValidator(shapes(shapesFile), {
    factory: rdf,
    importGraph: () => rdf.dataset(),
  });
  const report = await validator.validate(await jsonLdDataset(data));
  return report.results.map((r) => ({
    severity: r.severity?.value.replace(/.*#/, "") ?? "",
    path: r.path?.value ?? "",
    message: r.message.map((m) => m.value).join(" "),
  }));
}
