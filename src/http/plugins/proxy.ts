/**
 * A TLS-terminating proxy (nginx, Apache) in front of the node. Its forwarded client credentials are believed only
 * when the request carries the configured shared secret; without it those headers are ignored, so a caller who
 * reaches the node directly cannot claim a certificate it does not hold.
 */
import { createHash, timingSafeEqual } from "node:crypto";
import type { FastifyRequest } from "fastify";
import type { Credentials } from "../../auth/session.ts";
import { derFromForwardedPem } from "../../certificates/parse.ts";
import type { Config } from "../../config/config.ts";
import { InvalidToken } from "../../errors/exceptions.ts";

type ProxyConfig = Pick<
  Config,
  | "proxySecret"
  | "proxySecretHeader"
  | "proxyCertHeader"
  | "proxyDnHeader"
  | "proxyVerifyHeader"
  | "proxyClientAddressHeader"
>;

export interface TrustedProxy {
  /** Whether the request came through the configured proxy (it carries the shared secret). */
  trusted(request: FastifyRequest): boolean;
  /** The client certificate or DN the proxy forwards (nothing when the request is not trusted). */
  forwarded(request: FastifyRequest): Pick<Credentials, "certificate" | "dn">;
  /** The caller's address: the proxy's last X-Forwarded-For entry when trusted, else the socket's peer. */
  clientAddress(request: FastifyRequest): string;
}

export function trustedProxy(config: ProxyConfig): TrustedProxy {
  const secret = config.proxySecret === undefined ? undefined : digest(config.proxySecret);
  const header = (request: FastifyRequest, name: string): string | undefined => {
    const value = request.headers[name];
    return Array.isArray(value) ? value[0] : value;
  };
  const trusted = (request: FastifyRequest): boolean => {
    if (!secret) return false;
    const sent = header(request, config.proxySecretHeader);
    return sent !== undefined && timingSafeEqual(digest(sent), secret);
  };
  return {
    trusted,
    forwarded(request) {
      if (!trusted(request)) return {};
      const pem = header(request, config.proxyCertHeader)?.trim();
      // nginx sends an empty value (or "(null)" in older versions) when the client sent no certificate.
      if (pem && pem !== "(null)") {
        const der = derFromForwardedPem(pem);
        if (!der) throw new InvalidToken("The client certificate forwarded by the proxy cannot be parsed.");
        return { certificate: { source: "proxy", der, verdict: header(request, config.proxyVerifyHeader) } };
      }
      const dn = header(request, config.proxyDnHeader)?.trim();
      if (dn && dn !== "(null)") {
        // A DN alone is only as good as the proxy's verification of the certificate it came from.
        const verdict = header(request, config.proxyVerifyHeader)?.trim() ?? "";
        if (verdict.startsWith("FAILED") || verdict === "GENEROUS") {
          throw new InvalidToken(`The proxy did not verify the client certificate (${verdict}).`);
        }
        return { dn };
      }
      return {};
    },
    clientAddress(request) {
      if (!trusted(request)) return request.ip;
      const chain = header(request, config.proxyClientAddressHeader);
      const last = chain
        ?.split(",")
        .map((s) => s.trim())
        .filter((s) => s !== "")
        .at(-1);
      return last ?? request.ip;
    },
  };
}

function digest(value: string): Buffer {
  return createHash("sha256").update(value).digest();
}
