/**
 * The node's own X.509 client certificate (`nodeCert`, `nodeKey`): the identity DataONE gives a node ("each node
 * is issued an X.509 certificate by the DataONE CA whose subject is CN=urn:node:ID,DC=dataone,DC=org") and
 * presents in its calls to other nodes; and the CAs other nodes' server certificates must chain to (`peerCa`).
 */
import { X509Certificate } from "node:crypto";
import { readFileSync } from "node:fs";
import { readCertificate } from "./parse.ts";

/** The PEM certificate blocks of a file; an Error naming the setting when it has none or cannot be read. */
function certificateBlocks(file: string, setting: string): string[] {
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (error) {
    throw new Error(`setting "${setting}": cannot read ${file} (${(error as NodeJS.ErrnoException).code})`);
  }
  const blocks = text.match(/-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g);
  if (!blocks) throw new Error(`setting "${setting}": ${file} holds no PEM certificate`);
  return blocks;
}

/** The DataONE subject of the first certificate in a PEM file (the node's own, before any chain). */
export function certificateSubject(file: string, setting: string): string {
  const [first] = certificateBlocks(file, setting);
  try {
    return readCertificate(new X509Certificate(first as string).raw).subject;
  } catch {
    throw new Error(`setting "${setting}": the certificate in ${file} cannot be read`);
  }
}

/** What the node presents and trusts in its calls to other nodes over TLS. */
export interface PeerTls {
  /** The node certificate (and chain) and its key, PEM; absent without `nodeCert`. */
  cert?: string;
  key?: string;
  /** CA certificates (PEM) peers' server certificates must chain to; absent: the system's CAs. */
  ca?: string[];
}

export function loadPeerTls(config: {
  nodeCert?: string | undefined;
  nodeKey?: string | undefined;
  peerCa: readonly string[];
}): PeerTls {
  const tls: PeerTls = {};
  if (config.nodeCert && config.nodeKey) {
    tls.cert = certificateBlocks(config.nodeCert, "nodeCert").join("\n");
    try {
      tls.key = readFileSync(config.nodeKey, "utf8");
    } catch (error) {
      throw new Error(
        `setting "nodeKey": cannot read ${config.nodeKey} (${(error as NodeJS.ErrnoException).code})`,
      );
    }
  }
  if (config.peerCa.length > 0) tls.ca = config.peerCa.flatMap((file) => certificateBlocks(file, "peerCa"));
  return tls;
}
