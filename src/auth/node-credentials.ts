/**
 * How this node authenticates its calls to other nodes. "Member Nodes call the CN with their node client
 * certificate, and the CN calls Member Nodes with its own" (DataONE's federation): with `nodeCert`/`nodeKey`
 * set, every connection to a peer over TLS presents that certificate, and the peer's server certificate must
 * chain to `peerCa` (or the system's CAs). The node's own bearer token (node-token.ts) is sent as `nodeTokens`
 * says: by default only when no certificate is presented (none configured, or the peer speaks plain http), so a
 * peer that checks tokens against its CN's key (GMN, Metacat) never sees one it cannot verify.
 */
import { Agent } from "undici";
import { loadPeerTls } from "../certificates/node-certificate.ts";
import type { Config } from "../config/config.ts";
import { nodeAuthorization } from "./node-token.ts";

export type NodeCallConfig = Pick<
  Config,
  "dataDir" | "nodeSubject" | "nodeCert" | "nodeKey" | "peerCa" | "nodeTokens"
>;

/** One connection pool per set of TLS credentials: connections to a node are kept open between requests. */
const agents = new Map<string, Agent>();

export function nodeDispatcher(config: NodeCallConfig): Agent {
  const key = [config.nodeCert ?? "", config.nodeKey ?? "", ...config.peerCa].join("\n");
  let agent = agents.get(key);
  if (!agent) {
    agent = new Agent({
      keepAliveTimeout: 30_000,
      keepAliveMaxTimeout: 120_000,
      connect: { timeout: 10_000, ...loadPeerTls(config) },
    });
    agents.set(key, agent);
  }
  return agent;
}

/** Whether a call to `url` carries the node's bearer token. */
export function sendsNodeToken(config: NodeCallConfig, url: string): boolean {
  if (config.nodeTokens !== "auto") return config.nodeTokens === "always";
  return config.nodeCert === undefined || !url.startsWith("https:");
}

/** The headers that authenticate a call to `url` as this node (the certificate goes in the TLS handshake). */
export async function nodeCallHeaders(config: NodeCallConfig, url: string): Promise<Record<string, string>> {
  return sendsNodeToken(config, url) ? { authorization: await nodeAuthorization(config) } : {};
}
