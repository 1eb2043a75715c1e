/** Structured data as Debian's python3-extruct extracts it from a page (JSON-LD, microdata, RDFa...). */
import { execFileSync } from "node:child_process";

const SCRIPT = `import extruct, json, sys
print(json.dumps(extruct.extract(sys.stdin.read(), base_url=sys.argv[1], syntaxes=["json-ld"])))`;

export function extructJsonLd(html: string, baseUrl: string): unknown[] {
  const out = execFileSync("/usr/bin/python3", ["-c", SCRIPT, baseUrl], { input: html, encoding: "utf8" });
  return (JSON.parse(out) as { "json-ld": unknown[] })["json-ld"];
}
