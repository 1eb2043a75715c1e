/**
 * Access tokens issued by a configured OpenID Connect provider, brought as `Authorization: Bearer`: a JWT whose
 * `iss` is a configured provider is verified locally with that provider's published keys (no call to the
 * provider per request), and must carry the provider's issuer, an audience the settings list (in `aud`, or as
 * the authorized party `azp`, as Keycloak's access tokens name their client) and an expiry not passed.
 * Its subject is formed from the claims as at sign-in (subject-claims.ts).
 */
import { decodeJwt, errors as joseErrors, jwtVerify } from "jose";
import { InvalidToken } from "../../errors/exceptions.ts";
import type { OidcProviders } from "./providers.ts";
import { subjectFromClaims } from "./subject-claims.ts";

export interface ProviderTokens {
  /** Whether the token claims to come from a configured provider (its signature not yet checked). */
  isProviders(token: string): boolean;
  /** The token's subject, or InvalidToken saying why it is refused. */
  verify(token: string): Promise<string>;
}

function claimedIssuer(token: string): string | undefined {
  try {
    const { iss } = decodeJwt(token);
    return typeof iss === "string" ? iss : undefined;
  } catch {
    return undefined;
  }
}

export function providerTokens(providers: OidcProviders): ProviderTokens {
  return {
    isProviders(token) {
      const issuer = claimedIssuer(token);
      return issuer !== undefined && providers.byIssuer(issuer) !== undefined;
    },
    async verify(token) {
      const issuer = claimedIssuer(token);
      const provider = issuer === undefined ? undefined : providers.byIssuer(issuer);
      if (!provider) throw new InvalidToken("The bearer token is not from a configured provider.");
      let discovered: Awaited<ReturnType<OidcProviders["discovered"]>>;
      try {
        discovered = await providers.discovered(provider);
      } catch {
        throw new InvalidToken(
          `The bearer token's provider (${provider.name}) cannot be reached to read its signing keys.`,
        );
      }
      let payload: Record<string, unknown>;
      try {
        ({ payload } = await jwtVerify(token, discovered.keys, {
          issuer: discovered.issuer,
          requiredClaims: ["exp"],
        }));
      } catch (error) {
        if (error instanceof joseErrors.JWTExpired) throw new InvalidToken("The bearer token has expired.");
        if (error instanceof joseErrors.JWTClaimValidationFailed) {
          throw new InvalidToken(`The bearer token is not valid: its ${error.claim} claim is not accepted.`);
        }
        const code = error instanceof joseErrors.JOSEError ? error.code : "unverifiable";
        throw new InvalidToken(`The bearer token is not valid: its signature does not verify (${code}).`);
      }
      const audiences = new Set(provider.audiences);
      const aud = payload.aud;
      const named = typeof aud === "string" ? [aud] : Array.isArray(aud) ? aud : [];
      if (!named.some((a) => audiences.has(String(a))) && !audiences.has(String(payload.azp ?? ""))) {
        throw new InvalidToken("The bearer token is not valid: it is meant for another audience.");
      }
      const subject = subjectFromClaims(payload, provider.subjectClaims);
      if (subject === undefined) {
        throw new InvalidToken(
          `The bearer token carries none of the claims naming its subject (${provider.subjectClaims.join(", ")}).`,
        );
      }
      return subject;
    },
  };
}
