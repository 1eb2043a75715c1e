/**
 * The node's own bearer token for its calls to other nodes: "Authorization: Bearer <token>" signed with the
 * node's signing key for its subject (config.nodeSubject). Minted once per node and renewed an hour before it
 * expires.
 */
import type { Config } from "../config/config.ts";
import { loadOrCreateSigningKey } from "./keys.ts";
import { mintToken } from "./tokens.ts";

const TOKEN_TTL_SECONDS = 12 * 3600;
const tokens = new Map<string, { token: Promise<string>; renewAt: number }>();

export function nodeToken(config: Pick<Config, "dataDir" | "nodeSubject">): Promise<string> {
  const key = `${config.dataDir}\n${config.nodeSubject}`;
  const cached = tokens.get(key);
  if (cached && Date.now() < cached.renewAt) return cached.token;
  const { privateKey } = loadOrCreateSigningKey(config.dataDir);
  const token = mintToken(privateKey, { subject: config.nodeSubject, ttlSeconds: TOKEN_TTL_SECONDS });
  tokens.set(key, { token, renewAt: Date.now() + (TOKEN_TTL_SECONDS - 3600) * 1000 });
  token.catch(() => {
    if (tokens.get(key)?.token === token) tokens.delete(key);
  });
  return token;
}

/** The header the node's calls carry. */
export async function nodeAuthorization(config: Pick<Config, "dataDir" | "nodeSubject">): Promise<string> {
  return `Bearer ${await nodeToken(config)}`;
}
