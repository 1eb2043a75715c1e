/**
 * The OpenID Connect authorization code flow with PKCE (RFC 7636, S256), by openid-client. `start` records the
 * sign-in (state, nonce, code verifier, where to return) in the database, so that the provider's answer may reach
 * any serving process, and the browser holds the state in a cookie too: an answer is accepted only from the
 * browser that started it (no login CSRF). `finish` takes the request once, redeems the code, checks the ID token
 * (issuer, audience, nonce, expiry) and forms the person's subject from the ID token's and userinfo's claims.
 */
import * as oidc from "openid-client";
import type { BrowserSessionStore, SignedInPerson } from "../browser-session-store.ts";
import { hashOf } from "../browser-sessions.ts";
import type { OidcProviders } from "./providers.ts";
import { type Claims, personDetails, subjectFromClaims } from "./subject-claims.ts";

/** How long a sign-in may take at the provider. */
const SIGN_IN_SECONDS = 600;

export class SignInFailed extends Error {}

export interface SignInFlow {
  /** The provider's authorization URL, and the state for the browser's cookie. */
  start(provider: string | undefined, target: string): Promise<{ location: URL; state: string }>;
  /**
   * Where `start` would send the browser, with nothing recorded: the provider's authorization URL without a
   * state (HEAD asks what a sign-in link answers; it must not start one).
   */
  preview(provider: string | undefined): Promise<URL>;
  /** The person signed in and where to return, from the provider's answer at `callbackUrl`. */
  finish(
    callbackUrl: URL,
    browserState: string | undefined,
  ): Promise<{ person: SignedInPerson; target: string }>;
}

export function signInFlow(
  providers: OidcProviders,
  store: BrowserSessionStore,
  redirectUri: () => string,
): SignInFlow {
  const providerFor = (name: string | undefined) => {
    const provider = providers.forSignIn(name);
    if (!provider)
      throw new SignInFailed(
        name ? `No sign-in provider is named "${name}".` : "No sign-in provider is configured.",
      );
    return provider;
  };
  return {
    async start(name, target) {
      const provider = providerFor(name);
      const { client } = await providers.discovered(provider);
      const codeVerifier = oidc.randomPKCECodeVerifier();
      const state = oidc.randomState();
      const nonce = oidc.randomNonce();
      await store.saveRequest(hashOf(state), {
        provider: provider.name,
        codeVerifier,
        nonce,
        target,
        expiresAt: Date.now() + SIGN_IN_SECONDS * 1000,
      });
      const location = oidc.buildAuthorizationUrl(client, {
        redirect_uri: redirectUri(),
        scope: provider.scopes.join(" "),
        code_challenge: await oidc.calculatePKCECodeChallenge(codeVerifier),
        code_challenge_method: "S256",
        state,
        nonce,
      });
      return { location, state };
    },

    async preview(name) {
      const provider = providerFor(name);
      const { client } = await providers.discovered(provider);
      return oidc.buildAuthorizationUrl(client, {
        redirect_uri: redirectUri(),
        scope: provider.scopes.join(" "),
      });
    },

    async finish(callbackUrl, browserState) {
      const state = callbackUrl.searchParams.get("state") ?? "";
      if (state === "" || browserState !== state) {
        throw new SignInFailed(
          "This sign-in was not started in this browser, or took too long: please sign in again.",
        );
      }
      const request = await store.takeRequest(hashOf(state), Date.now());
      const provider = request ? providers.byName(request.provider) : undefined;
      if (!request || !provider)
        throw new SignInFailed("This sign-in is unknown or expired: please sign in again.");
      const { client } = await providers.discovered(provider);
      // The callback is checked against the registered redirect URI, not the URL as this process saw it.
      const answer = new URL(redirectUri());
      answer.search = callbackUrl.search;
      let claims: Claims;
      let accessToken: string;
      try {
        const tokens = await oidc.authorizationCodeGrant(client, answer, {
          pkceCodeVerifier: request.codeVerifier,
          expectedState: state,
          expectedNonce: request.nonce,
          idTokenExpected: true,
        });
        claims = tokens.claims() ?? {};
        accessToken = tokens.access_token;
      } catch (error) {
        throw new SignInFailed(`The provider did not confirm the sign-in (${(error as Error).message}).`);
      }
      // Userinfo adds what the ID token leaves out (name, e-mail); the ID token's claims win.
      let info: Claims = {};
      if (client.serverMetadata().userinfo_endpoint && typeof claims.sub === "string") {
        info = await oidc.fetchUserInfo(client, accessToken, claims.sub).catch(() => ({}));
      }
      const all = { ...info, ...claims };
      const subject = subjectFromClaims(all, provider.subjectClaims);
      if (subject === undefined) {
        throw new SignInFailed(`The provider named no subject (${provider.subjectClaims.join(", ")}).`);
      }
      return { person: { subject, ...personDetails(all), provider: provider.name }, target: request.target };
    },
  };
}
