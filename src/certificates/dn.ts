/**
 * Subject strings from X.509 names, serialised exactly as DataONE's d1_common does: "the sequence of RDNs is
 * reversed. Attribute values are escaped, attribute type and value pairs are separated by '=', and AVAs are
 * joined together with ','. If an RDN contains an unknown OID, the OID is serialized as a dotted string"
 * (d1_common.cert.x509.extract_subject_from_dn), e.g. `CN=Jane Doe A123,O=Google,C=US,DC=cilogon,DC=org`.
 */
import type { AttributeValue, Name } from "@peculiar/asn1-x509";

/** "Map OID to short names ... pulled from LDAPv3 RFCs (RFC 4510 to RFC 4519)" (d1_common). */
const SHORT_NAMES: Readonly<Record<string, string>> = {
  "0.9.2342.19200300.100.1.1": "UID",
  "0.9.2342.19200300.100.1.25": "DC",
  "1.2.840.113549.1.9.1": "email",
  "2.5.4.3": "CN",
  "2.5.4.4": "SN",
  "2.5.4.6": "C",
  "2.5.4.7": "L",
  "2.5.4.8": "ST",
  "2.5.4.9": "STREET",
  "2.5.4.10": "O",
  "2.5.4.11": "OU",
};

/** Other spellings proxies use for the same attributes (OpenSSL's RFC 2253 output, Apache's legacy form). */
const ALIASES: Readonly<Record<string, string>> = { EMAILADDRESS: "email", E: "email", USERID: "UID" };

/** "The following chars must be escaped in RDNs: , = + < > # ; \ \"" (rdn_escape; `"` is in fact left as is). */
export function rdnEscape(value: string): string {
  return value.replace(/[,=+<>#;\\]/g, (c) => `\\${c}`);
}

/** A certificate's subject (or issuer) Name as a DataONE subject string. */
export function subjectFromName(name: Name): string {
  const attributes = name.flatMap((rdn) => [...rdn]);
  return attributes
    .reverse()
    .map((a) => `${SHORT_NAMES[a.type] ?? a.type}=${rdnEscape(valueText(a.value))}`)
    .join(",");
}

function valueText(value: AttributeValue): string {
  if (value.anyValue) return `#${Buffer.from(value.anyValue).toString("hex")}`;
  return value.toString();
}

/**
 * A DN as a proxy forwards it (nginx `$ssl_client_s_dn` and Apache `SSL_CLIENT_S_DN`: RFC 2253/4514 order and
 * escaping; Apache's legacy `/C=US/O=Org/CN=Name` form too) re-serialised the DataONE way. Returns undefined when
 * the text is not a DN.
 */
export function subjectFromDnString(text: string): string | undefined {
  const trimmed = text.trim();
  if (trimmed === "") return undefined;
  const pairs = trimmed.startsWith("/") ? legacyPairs(trimmed) : rfc4514Pairs(trimmed);
  if (!pairs || pairs.length === 0) return undefined;
  return pairs
    .map(([type, value]) => {
      const upper = type.toUpperCase();
      const known = Object.values(SHORT_NAMES).find((s) => s.toUpperCase() === upper);
      return `${known ?? ALIASES[upper] ?? type}=${rdnEscape(value)}`;
    })
    .join(",");
}

/** `/C=US/O=Org/CN=Name` (forward order): reversed into the RFC 2253 order. */
function legacyPairs(text: string): [string, string][] | undefined {
  const pairs: [string, string][] = [];
  for (const part of text.slice(1).split("/")) {
    const eq = part.indexOf("=");
    if (eq <= 0) return undefined;
    pairs.push([part.slice(0, eq).trim(), part.slice(eq + 1)]);
  }
  return pairs.reverse();
}

/** RFC 4514: `type=value` pairs separated by `,` or `+`; `\c` and `\XX` (hex UTF-8 bytes) escapes. */
function rfc4514Pairs(text: string): [string, string][] | undefined {
  const pairs: [string, string][] = [];
  let i = 0;
  while (i < text.length) {
    const eq = text.indexOf("=", i);
    if (eq < 0) return undefined;
    const type = text.slice(i, eq).trim();
    if (!/^([A-Za-z][A-Za-z0-9-]*|\d+(\.\d+)*)$/.test(type)) return undefined;
    const bytes: number[] = [];
    let j = eq + 1;
    while (j < text.length && text[j] !== "," && text[j] !== "+") {
      const c = String.fromCodePoint(text.codePointAt(j) ?? 0);
      if (c === "\\") {
        const hex = text.slice(j + 1, j + 3);
        if (/^[0-9A-Fa-f]{2}$/.test(hex)) {
          bytes.push(Number.parseInt(hex, 16));
          j += 3;
          continue;
        }
        const next = text.codePointAt(j + 1);
        if (next === undefined) return undefined;
        const escaped = String.fromCodePoint(next);
        bytes.push(...Buffer.from(escaped));
        j += 1 + escaped.length;
        continue;
      }
      bytes.push(...Buffer.from(c));
      j += c.length;
    }
    pairs.push([type, Buffer.from(bytes).toString("utf8").trim()]);
    i = j + 1;
  }
  return pairs;
}
