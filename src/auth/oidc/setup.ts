/** The sign-in parts a serving process holds, made from the settings and the database's sign-in records. */
import type { Config } from "../../config/config.ts";
import type { BrowserSessionStore } from "../browser-session-store.ts";
import { type BrowserSessions, browserSessions } from "../browser-sessions.ts";
import { type ProviderTokens, providerTokens } from "./access-tokens.ts";
import { createOidcProviders, type OidcProviders } from "./providers.ts";
import { type SignInFlow, signInFlow } from "./sign-in.ts";

export interface SignIn {
  providers: OidcProviders;
  sessions: BrowserSessions;
  flow: SignInFlow;
  tokens: ProviderTokens;
  store: BrowserSessionStore;
  /** The redirect URI registered with the providers: {signInRedirectBase or baseUrl}/portal/callback. */
  redirectUri(): string;
}

/** `config` is read when asked (a node on port 0 knows its base URL once listening). */
export function createSignIn(
  config: Readonly<
    Pick<Config, "oidcProviders" | "signInRedirectBase" | "baseUrl" | "signInSessionLifetime">
  >,
  store: BrowserSessionStore,
): SignIn {
  const providers = createOidcProviders(config.oidcProviders);
  const redirectUri = () => `${config.signInRedirectBase ?? config.baseUrl}/portal/callback`;
  return {
    providers,
    sessions: browserSessions(store, config.signInSessionLifetime),
    flow: signInFlow(providers, store, redirectUri),
    tokens: providerTokens(providers),
    store,
    redirectUri,
  };
}
