/**
 * A real OpenID Connect provider (npm oidc-provider) on a local port for sign-in tests, with its development
 * login and consent pages, shaped like DataONE's Keycloak realm: accounts carry an `orcid` claim (ORCID users) or
 * an `ldap_dn` claim (LDAP users) beside an opaque `sub`. `accessToken` signs access tokens with the provider's own
 * published key, as the realm issues them (iss, aud/azp, sub, exp), for the bearer-token tests.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { exportJWK, generateKeyPair, type JWTPayload, SignJWT } from "jose";
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
  const { privateKey } = await generateKeyPair("RS256", { extractable: true });
  const forger = await generateKeyPair("RS256");
  const jwk = { ...(await exportJWK(privateKey)), kid: "realm-key", alg: "RS256", use: "sig" };
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
  server.on("request", provider.callback());
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
        .setProtectedHeader({ alg: "RS256", kid: "realm-key", typ: "JWT" })
        .sign(forged ? forger.privateKey : privateKey);
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
