/**
 * The OpenID Connect settings: `oidcProviders`, a JSON array (in the config file, or as JSON text in
 * D1NODE_OIDC_PROVIDERS) of providers people sign in with and whose access tokens the node accepts. A client
 * secret is never a setting's value: it is read from a file or an environment variable named here, so that the
 * configuration can be shown or logged without it.
 */
import type { OidcProvider } from "./types.ts";
import { boolean, list, text } from "./validators.ts";

const NAME = /^[a-z0-9][a-z0-9_-]{0,31}$/;

export function oidcProviders(value: unknown): OidcProvider[] {
  let parsed = value;
  if (typeof value === "string") {
    try {
      parsed = JSON.parse(value);
    } catch {
      throw new Error('setting "oidcProviders" must be a JSON array of providers');
    }
  }
  if (!Array.isArray(parsed)) throw new Error('setting "oidcProviders" must be a JSON array of providers');
  const providers = parsed.map((entry, i) => oidcProvider(entry, `oidcProviders[${i}]`));
  const names = new Set<string>();
  for (const p of providers) {
    if (names.has(p.name)) throw new Error(`setting "oidcProviders": the name "${p.name}" is used twice`);
    names.add(p.name);
  }
  return providers;
}

function oidcProvider(entry: unknown, where: string): OidcProvider {
  if (typeof entry !== "object" || entry === null || Array.isArray(entry)) {
    throw new Error(`setting "${where}" must be an object`);
  }
  const e = entry as Record<string, unknown>;
  const known = [
    "name",
    "issuer",
    "clientId",
    "clientSecretFile",
    "clientSecretEnv",
    "scopes",
    "subjectClaims",
    "audiences",
    "signIn",
  ];
  for (const key of Object.keys(e)) {
    if (key === "clientSecret") {
      throw new Error(
        `setting "${where}": give the client secret as clientSecretFile (a file holding it) or clientSecretEnv ` +
          "(the environment variable holding it), not in the configuration",
      );
    }
    if (!known.includes(key)) throw new Error(`setting "${where}": unknown field "${key}"`);
  }
  const name = text(`${where}.name`, e.name);
  if (!NAME.test(name)) {
    throw new Error(`setting "${where}.name" must be a short lower-case name (letters, digits, - and _)`);
  }
  const issuer = text(`${where}.issuer`, e.issuer).replace(/\/+$/, "");
  if (!/^https?:\/\/[^/]/.test(issuer)) throw new Error(`setting "${where}.issuer" must be an http(s) URL`);
  const clientId = text(`${where}.clientId`, e.clientId);
  const optional = (key: string) => (e[key] === undefined ? undefined : text(`${where}.${key}`, e[key]));
  const clientSecretFile = optional("clientSecretFile");
  const clientSecretEnv = optional("clientSecretEnv");
  if (clientSecretFile !== undefined && clientSecretEnv !== undefined) {
    throw new Error(`setting "${where}": give clientSecretFile or clientSecretEnv, not both`);
  }
  const scopes = e.scopes === undefined ? ["openid", "profile", "email"] : list(`${where}.scopes`, e.scopes);
  if (!scopes.includes("openid")) throw new Error(`setting "${where}.scopes" must include "openid"`);
  const subjectClaims =
    e.subjectClaims === undefined ? ["sub"] : list(`${where}.subjectClaims`, e.subjectClaims);
  if (subjectClaims.length === 0) throw new Error(`setting "${where}.subjectClaims" must name a claim`);
  const audiences = e.audiences === undefined ? [clientId] : list(`${where}.audiences`, e.audiences);
  return {
    name,
    issuer,
    clientId,
    ...(clientSecretFile !== undefined ? { clientSecretFile } : {}),
    ...(clientSecretEnv !== undefined ? { clientSecretEnv } : {}),
    scopes,
    subjectClaims,
    audiences,
    signIn: e.signIn === undefined ? true : boolean(`${where}.signIn`, e.signIn),
  };
}
