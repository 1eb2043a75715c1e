/**
 * A person's DataONE subject and details from the claims of an ID token, userinfo answer or access token.
 * DataONE names ORCID users `http://orcid.org/0000-0002-1825-0097` (http, no www); an ORCID iD given bare or as
 * another orcid.org URL is written that way. Any other value (an LDAP DN, a CILogon subject) is the subject as it is.
 */
const ORCID = /^(?:https?:\/\/(?:www\.)?orcid\.org\/)?(\d{4}-\d{4}-\d{4}-\d{3}[\dX])\/?$/i;

export type Claims = Readonly<Record<string, unknown>>;

/** The subject from the first of `names` the claims carry as a non-empty string, or undefined. */
export function subjectFromClaims(claims: Claims, names: readonly string[]): string | undefined {
  for (const name of names) {
    const value = claims[name];
    if (typeof value !== "string" || value.trim() === "") continue;
    const orcid = ORCID.exec(value.trim());
    return orcid ? `http://orcid.org/${orcid[1]?.toUpperCase()}` : value.trim();
  }
  return undefined;
}

export interface PersonDetails {
  fullName?: string;
  givenName?: string;
  familyName?: string;
  /** Only when the provider gives one (an ORCID user's e-mail is often private). */
  email?: string;
}

const textClaim = (claims: Claims, name: string) => {
  const value = claims[name];
  return typeof value === "string" && value.trim() !== "" ? value.trim() : undefined;
};

export function personDetails(claims: Claims): PersonDetails {
  const givenName = textClaim(claims, "given_name");
  const familyName = textClaim(claims, "family_name");
  const joined = [givenName, familyName].filter((s) => s !== undefined).join(" ");
  const fullName = textClaim(claims, "name") ?? (joined === "" ? undefined : joined);
  // An address the provider says is not verified is not recorded as the person's.
  const email = claims.email_verified === false ? undefined : textClaim(claims, "email");
  return {
    ...(fullName !== undefined ? { fullName } : {}),
    ...(givenName !== undefined ? { givenName } : {}),
    ...(familyName !== undefined ? { familyName } : {}),
    ...(email !== undefined ? { email } : {}),
  };
}
