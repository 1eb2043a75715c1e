/**
 * The configured OpenID Connect providers, each discovered (its /.well-known/openid-configuration) when first
 * needed and kept, with its signing keys fetched through jose's remote key set (cached, fetched again when a
 * token names a key not yet seen: the provider's key rotation is followed without a call per request).
 * A discovery that fails is tried again on the next use. Client secrets are read once, at start-up, from the file
 * or environment variable the settings name; they are never logged or shown.
 */
import { readFileSync } from "node:fs";
import { createRemoteJWKSet, type JWTVerifyGetKey } from "jose";
import * as oidc from "openid-client";
import type { OidcProvider } from "../../config/config.ts";

export interface DiscoveredProvider {
  settings: OidcProvider;
  client: oidc.Configuration;
  /** The issuer as the provider's metadata states it (tokens must carry it exactly). */
  issuer: string;
  keys: JWTVerifyGetKey;
}

export interface OidcProviders {
  readonly list: readonly OidcProvider[];
  /** The provider a token's `iss` names, if configured. */
  byIssuer(issuer: string): OidcProvider | undefined;
  byName(name: string): OidcProvider | undefined;
  /** The sign-in provider named, or the first one offered for sign-in. */
  forSignIn(name: string | undefined): OidcProvider | undefined;
  discovered(provider: OidcProvider): Promise<DiscoveredProvider>;
}

const LOOPBACK = new Set(["127.0.0.1", "localhost", "[::1]"]);

/** Plain http is accepted only for a provider on this machine (a local test provider). */
function isLoopbackHttp(issuer: string): boolean {
  const url = new URL(issuer);
  return url.protocol === "http:" && LOOPBACK.has(url.hostname);
}

function clientSecret(p: OidcProvider): string | undefined {
  if (p.clientSecretFile !== undefined) {
    let secret: string;
    try {
      secret = readFileSync(p.clientSecretFile, "utf8").trim();
    } catch (error) {
      throw new Error(
        `cannot read the client secret of OpenID Connect provider "${p.name}" from ${p.clientSecretFile} ` +
          `(${(error as NodeJS.ErrnoException).code ?? "unreadable"})`,
      );
    }
    if (secret === "") throw new Error(`the client secret file ${p.clientSecretFile} is empty`);
    return secret;
  }
  if (p.clientSecretEnv !== undefined) {
    const secret = process.env[p.clientSecretEnv]?.trim();
    if (!secret) {
      throw new Error(
        `the environment variable ${p.clientSecretEnv} (client secret of "${p.name}") is not set`,
      );
    }
    return secret;
  }
  return undefined;
}

export function createOidcProviders(settings: readonly OidcProvider[]): OidcProviders {
  for (const p of settings) {
    const url = new URL(p.issuer);
    if (url.protocol !== "https:" && !isLoopbackHttp(p.issuer)) {
      throw new Error(`OpenID Connect provider "${p.name}": the issuer must be an https URL`);
    }
  }
  const secrets = new Map(settings.map((p) => [p.name, clientSecret(p)]));
  const discoveries = new Map<string, Promise<DiscoveredProvider>>();
  const discover = async (p: OidcProvider): Promise<DiscoveredProvider> => {
    const secret = secrets.get(p.name);
    const client = await oidc.discovery(
      new URL(p.issuer),
      p.clientId,
      undefined,
      secret === undefined ? oidc.None() : oidc.ClientSecretBasic(secret),
      isLoopbackHttp(p.issuer) ? { execute: [oidc.allowInsecureRequests] } : {},
    );
    const metadata = client.serverMetadata();
    if (!metadata.jwks_uri) throw new Error(`OpenID Connect provider "${p.name}" publishes no jwks_uri`);
    return {
      settings: p,
      client,
      issuer: metadata.issuer,
      keys: createRemoteJWKSet(new URL(metadata.jwks_uri), { cooldownDuration: 30_000 }),
    };
  };
  const normalise = (issuer: string) => issuer.replace(/\/+$/, "");
  return {
    list: settings,
    byIssuer: (issuer) => settings.find((p) => p.issuer === normalise(issuer)),
    byName: (name) => settings.find((p) => p.name === name),
    forSignIn: (name) =>
      name === undefined || name === ""
        ? settings.find((p) => p.signIn)
        : settings.find((p) => p.signIn && p.name === name),
    discovered(p) {
      let found = discoveries.get(p.name);
      if (!found) {
        found = discover(p);
        discoveries.set(p.name, found);
        found.catch(() => discoveries.delete(p.name));
      }
      return found;
    },
  };
}
