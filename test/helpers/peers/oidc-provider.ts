/**
 * A real OpenID Connect provider (npm oidc-provider) on a local port for sign-in tests, with its development
 * login and consent pages, shaped like DataONE's Keycloak realm: accounts carry an `orcid` claim (ORCID users) or
 * an `ldap_dn` claim (LDAP users) beside an opaque `sub`. `accessToken` signs access tokens with the provider's own
 * published key, as the realm issues them (iss, aud/azp, sub, exp), for the bearer-token tests; `rotateKey`
 * publishes a new signing key beside the old one (as a realm rotating its keys does) and signs with it from then on.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { exportJWK, generateKeyPair, type JWK, type JWTPayload, SignJWT } from "jose";
import Provider from "oidc-provider";

export interface TestAccount {
  sub: string;
  name?: string;
  given_name?: string;
  family_name?: string;
  email?: string;
  email_verified?: boolean;
  orcid?: string;
  ldap_dn?: string;
}

export interface TestProvider {
  issuer: string;
  clientId: string;
  clientSecret: string;
  /** An access token signed with the provider's key (or `otherKey`: a forgery). */
  accessToken(claims: JWTPayload, options?: { forged?: boolean; ttlSeconds?: number }): Promise<string>;
  /** Publishes a new key in the provider's key set and signs access tokens with it from now on. */
  rotateKey(): Promise<void>;
  /** How many times the key set was fetched. */
  keySetFetches(): number;
  close(): Promise<void>;
}

export async function startOidcProvider(options: {
  redirectUris: string[];
  accounts: TestAccount[];
  clientSecret?: string;
}): Promise<TestProvider> {
  const server: Server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const { privateKey, publicKey } = await generateKeyPair("RS256", { extractable: true });
  const forger = await generateKeyPair("RS256");
  const jwk = { ...(await exportJWK(privateKey)), kid: "realm-key", alg: "RS256", use: "sig" };
  const publicJwk = async (key: CryptoKey, kid: string): Promise<JWK> => ({
    ...(await exportJWK(key)),
    kid,
    alg: "RS256",
    use: "sig",
  });
  // The key set the provider publishes (its jwks_uri, /jwks): the realm's key, then any rotated in.
  const published: JWK[] = [await publicJwk(publicKey, "realm-key")];
  let signing: { privateKey: CryptoKey; kid: string } = { privateKey, kid: "realm-key" };
  const clientId = "d1node";
  const clientSecret = options.clientSecret ?? "test-client-secret-0123456789";
  const accounts = new Map(options.accounts.map((a) => [a.sub, a]));
  const provider = new Provider(issuer, {
    clients: [
      {
        client_id: clientId,
        client_secret: clientSecret,
        redirect_uris: options.redirectUris,
        grant_types: ["authorization_code"],
        response_types: ["code"],
      },
    ],
    jwks: { keys: [jwk] },
    cookies: { keys: ["test-cookie-key"] },
    claims: {
      openid: ["sub"],
      profile: ["name", "given_name", "family_name", "orcid", "ldap_dn"],
      email: ["email", "email_verified"],
    },
    conformIdTokenClaims: false,
    findAccount: async (_ctx, id) => {
      const account = accounts.get(id);
      if (!account) return undefined;
      return { accountId: id, claims: async () => ({ ...account }) };
    },
  });
  const callback = provider.callback();
  let keySetFetches = 0;
  server.on("request", (request, response) => {
    if (request.method === "GET" && request.url === "/jwks") {
      keySetFetches++;
      response.setHeader("content-type", "application/jwk-set+json");
      response.end(JSON.stringify({ keys: published }));
      return;
    }
    callback(request, response);
  });
  return {
    issuer,
    clientId,
    clientSecret,
    async accessToken(claims, { forged = false, ttlSeconds = 300 } = {}) {
      const now = Math.floor(Date.now() / 1000);
      return new SignJWT({
        iss: issuer,
        aud: "account",
        azp: clientId,
        iat: now,
        exp: now + ttlSeconds,
        ...claims,
      })
        .setProtectedHeader({ alg: "RS256", kid: signing.kid, typ: "JWT" })
        .sign(forged ? forger.privateKey : signing.privateKey);
    },
    keySetFetches: () => keySetFetches,
    async rotateKey() {
      const next = await generateKeyPair("RS256", { extractable: true });
      const kid = `realm-key-${published.length + 1}`;
      published.push(await publicJwk(next.publicKey, kid));
      signing = { privateKey: next.privateKey, kid };
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
