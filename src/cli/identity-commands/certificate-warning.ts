/** `serve` and `register` check the node certificate as `d1node cert check` does: one warning line when off. */
import { readFileSync } from "node:fs";
import { nodeCertificateWarning } from "../../auth/x509/node-check.ts";
import type { Config } from "../../config/config.ts";

export function warnAboutNodeCertificate(config: Readonly<Config>, baseUrl = config.baseUrl): void {
  if (!config.nodeCert) return;
  let text: string;
  try {
    text = readFileSync(config.nodeCert, "utf8");
  } catch {
    return; // the node's own start-up says it cannot read the file
  }
  let host: string | undefined;
  try {
    host = new URL(baseUrl).hostname;
  } catch {}
  const warning = nodeCertificateWarning(config.nodeCert, text, { nodeId: config.nodeId, host });
  if (warning) process.stderr.write(`warning: ${warning}\n`);
}
