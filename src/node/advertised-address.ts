/**
 * Whether the base URL a node advertises (in its Node document, to its CN and peers) can reach the socket it
 * listens on. A node behind a proxy (`proxySecret` set) is reached through the proxy: nothing to compare.
 */
import type { Config } from "../config/config.ts";

const LOOPBACK = /^(127\.|::1$|localhost$)/;

/** One line per mismatch between the advertised base URL and the bound address (a running node's config). */
export function advertisedAddressWarnings(config: Readonly<Config>): string[] {
  const boundPort = config.port;
  if (config.proxySecret !== undefined) return [];
  let url: URL;
  try {
    url = new URL(config.baseUrl);
  } catch {
    return [];
  }
  const warnings: string[] = [];
  const advertised = Number(url.port || (url.protocol === "https:" ? 443 : 80));
  if (advertised !== boundPort) {
    warnings.push(
      `base URL ${config.baseUrl} implies port ${advertised} but the node listens on ${boundPort}: add --port ${advertised}, or put the port in --base-url (set proxySecret when a proxy forwards it)`,
    );
  }
  const host = url.hostname.replace(/^\[|\]$/g, "");
  if (LOOPBACK.test(config.host) && !LOOPBACK.test(host)) {
    warnings.push(
      `base URL ${config.baseUrl} names host ${host} but the node listens on ${config.host} only: add --host 0.0.0.0`,
    );
  }
  return warnings;
}
