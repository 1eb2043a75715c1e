/**
 * The sign-in's pure rules: where a browser may be sent back (no open redirect), how a DataONE subject is formed
 * from a provider's claims (ORCID iDs written as DataONE writes them, DNs kept), and the provider settings (a
 * client secret is never a setting's value).
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { redirectRule } from "../../../src/auth/oidc/redirect-targets.ts";
import { personDetails, subjectFromClaims } from "../../../src/auth/oidc/subject-claims.ts";
import { resolveConfig } from "../../../src/config/config.ts";

describe("sign-in redirect targets", () => {
  const allowed = redirectRule(() => ["https://repo.example.org", "https://search.example.org"]);
  it("accepts pages of the node's origin and of listed origins, and paths", () => {
    assert.equal(
      allowed("https://repo.example.org/view/x?a=1&b=2"),
      "https://repo.example.org/view/x?a=1&b=2",
    );
    assert.equal(allowed("https://search.example.org/"), "https://search.example.org/");
    assert.equal(allowed("/signinsuccess"), "https://repo.example.org/signinsuccess");
    assert.equal(allowed("https%3A%2F%2Frepo.example.org%2Fdata"), "https://repo.example.org/data");
  });
  it("refuses other origins in every spelling", () => {
    for (const target of [
      "https://evil.example/",
      "http://repo.example.org/",
      "//evil.example",
      "/\\evil.example",
      "\\\\evil.example",
      "%2F%2Fevil.example",
      "https%3A%2F%2Fevil.example",
      "https://repo.example.org@evil.example/",
      "https://repo.example.org.evil.example/",
      "https:evil.example",
      "https:/evil.example",
      "javascript:alert(1)",
      "data:text/html,x",
      "evil.example",
      "/x\r\nLocation: https://evil.example",
      "",
    ]) {
      assert.equal(allowed(target), undefined, target);
    }
  });
});

describe("subjects from claims", () => {
  it("writes ORCID iDs as DataONE does, keeps DNs, tries claims in order", () => {
    const names = ["orcid", "ldap_dn", "sub"];
    assert.equal(
      subjectFromClaims({ sub: "0000-0002-1825-009x" }, ["sub"]),
      "http://orcid.org/0000-0002-1825-009X",
    );
    assert.equal(
      subjectFromClaims({ orcid: "https://orcid.org/0000-0002-1825-0097", sub: "u1" }, names),
      "http://orcid.org/0000-0002-1825-0097",
    );
    const dn = "CN=Jane Doe,O=NCEAS,DC=ecoinformatics,DC=org";
    assert.equal(subjectFromClaims({ ldap_dn: dn, sub: "u2" }, names), dn);
    assert.equal(subjectFromClaims({ sub: "u3", orcid: "" }, names), "u3");
    assert.equal(subjectFromClaims({}, names), undefined);
  });
  it("records a name without an e-mail, and no unverified e-mail", () => {
    assert.deepEqual(personDetails({ given_name: "Josiah", family_name: "Carberry" }), {
      fullName: "Josiah Carberry",
      givenName: "Josiah",
      familyName: "Carberry",
    });
    assert.equal(personDetails({ email: "a@b.org", email_verified: false }).email, undefined);
  });
});

describe("oidcProviders setting", () => {
  const provider = { name: "orcid", issuer: "https://orcid.org/", clientId: "APP-1" };
  it("fills the defaults", () => {
    const [p] = resolveConfig({ oidcProviders: [provider] }).oidcProviders;
    assert.equal(p?.issuer, "https://orcid.org");
    assert.deepEqual(p?.scopes, ["openid", "profile", "email"]);
    assert.deepEqual(p?.audiences, ["APP-1"]);
    assert.equal(p?.signIn, true);
  });
  it("takes JSON text from the environment", () => {
    const config = resolveConfig({ oidcProviders: JSON.stringify([provider]) });
    assert.equal(config.oidcProviders[0]?.name, "orcid");
  });
  it("refuses a client secret given as a value, and names it without echoing it", () => {
    assert.throws(
      () => resolveConfig({ oidcProviders: [{ ...provider, clientSecret: "s3cret-value" }] }),
      (error: Error) => /clientSecretFile/.test(error.message) && !error.message.includes("s3cret-value"),
    );
  });
  it("refuses scopes without openid, unknown fields and twice-used names", () => {
    assert.throws(() => resolveConfig({ oidcProviders: [{ ...provider, scopes: ["profile"] }] }), /openid/);
    assert.throws(() => resolveConfig({ oidcProviders: [{ ...provider, extra: 1 }] }), /unknown field/);
    assert.throws(() => resolveConfig({ oidcProviders: [provider, provider] }), /twice/);
  });
});
