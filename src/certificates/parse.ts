/**
 * Client certificates: "The caller's identity (the session) is taken from the X.509 client certificate presented
 * in the SSL handshake" (API text, Authentication 1). The subject is the certificate's DN (see dn.ts); groups and
 * equivalent identities come from the DataONE SubjectInfo extension (OID 1.3.6.1.4.1.34998.2.1), whose value is
 * a SubjectInfo XML document in a DER string. "A certificate or token that cannot be parsed or verified gives
 * InvalidToken" (Authentication 3).
 */
import { X509Certificate } from "node:crypto";
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import type { Certificate } from "@peculiar/asn1-x509";
import { InvalidToken } from "../errors/exceptions.ts";
import { parseSubjectInfo, type SubjectInfo } from "../types/index.ts";
import { subjectFromName } from "./dn.ts";

export const SUBJECT_INFO_OID = "1.3.6.1.4.1.34998.2.1";

export interface CertificateIdentity {
  subject: string;
  subjectInfo?: SubjectInfo;
}

/** The subject and SubjectInfo of a DER certificate; InvalidToken when it cannot be read. */
export function readCertificate(der: Uint8Array): CertificateIdentity {
  const { AsnConvert, Certificate } = asn1();
  let cert: Certificate;
  try {
    cert = AsnConvert.parse(der, Certificate);
  } catch {
    throw new InvalidToken("The client certificate cannot be parsed.");
  }
  const subject = subjectFromName(cert.tbsCertificate.subject);
  if (subject === "") throw new InvalidToken("The client certificate has an empty subject DN.");
  const extension = cert.tbsCertificate.extensions?.find((e) => e.extnID === SUBJECT_INFO_OID);
  if (!extension) return { subject };
  const xml = derString(new Uint8Array(extension.extnValue.buffer));
  if (xml === undefined) throw new InvalidToken("The certificate's SubjectInfo extension is not a string.");
  return { subject, subjectInfo: parseSubjectInfo(xml, InvalidToken) };
}

interface Asn1 {
  AsnConvert: typeof import("@peculiar/asn1-schema").AsnConvert;
  Certificate: typeof import("@peculiar/asn1-x509").Certificate;
}
let asn1Modules: Asn1 | undefined;

/**
 * The ASN.1 parser, loaded on the first certificate: a token-only node never pays its memory
 * (docs/decisions.md, "Hot paths").
 */
function asn1(): Asn1 {
  if (!asn1Modules) {
    const require = createRequire(import.meta.url);
    asn1Modules = {
      AsnConvert: require("@peculiar/asn1-schema").AsnConvert,
      Certificate: require("@peculiar/asn1-x509").Certificate,
    };
  }
  return asn1Modules;
}

/** A DER-encoded character string (UTF8String, IA5String, PrintableString, BMPString); undefined otherwise. */
function derString(der: Uint8Array): string | undefined {
  const tag = der[0];
  let length = der[1] ?? 0;
  let offset = 2;
  if (length & 0x80) {
    const octets = length & 0x7f;
    if (octets === 0 || octets > 4) return undefined;
    length = 0;
    for (let i = 0; i < octets; i++) length = length * 256 + (der[offset + i] ?? 0);
    offset += octets;
  }
  if (offset + length > der.length) return undefined;
  const body = Buffer.from(der.subarray(offset, offset + length));
  if (tag === 0x0c || tag === 0x16 || tag === 0x13) return body.toString("utf8");
  if (tag === 0x1e) return body.swap16().toString("utf16le");
  return undefined;
}

/** DER bytes from a PEM certificate as proxies forward it: URL-encoded (nginx), newlines as spaces (Apache). */
export function derFromForwardedPem(value: string): Buffer | undefined {
  let text = value.trim();
  if (text === "") return undefined;
  if (text.includes("%")) {
    try {
      text = decodeURIComponent(text);
    } catch {
      return undefined;
    }
  }
  const armoured = /-----BEGIN CERTIFICATE-----([\s\S]*?)-----END CERTIFICATE-----/.exec(text);
  const base64 = (armoured ? (armoured[1] ?? "") : text).replace(/\s+/g, "");
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(base64)) return undefined;
  return Buffer.from(base64, "base64");
}

/** Every certificate in the PEM files of a CA bundle. */
export function loadCaBundle(files: readonly string[]): X509Certificate[] {
  const cas: X509Certificate[] = [];
  for (const file of files) {
    const blocks = readFileSync(file, "utf8").match(
      /-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g,
    );
    if (!blocks) throw new Error(`${file}: no PEM certificate found`);
    for (const block of blocks) cas.push(new X509Certificate(block));
  }
  return cas;
}

/**
 * The checks the TLS stack makes, for a certificate that a proxy forwarded: within its validity period and, when
 * a CA bundle is configured, signed by one of its certificates. Throws InvalidToken saying what failed.
 */
export function verifyForwardedCertificate(
  der: Buffer,
  cas: readonly X509Certificate[],
  now = new Date(),
): { validTo: Date } {
  let cert: X509Certificate;
  try {
    cert = new X509Certificate(der);
  } catch {
    throw new InvalidToken("The client certificate cannot be parsed.");
  }
  if (now < new Date(cert.validFrom)) throw new InvalidToken("The client certificate is not yet valid.");
  const validTo = new Date(cert.validTo);
  if (now > validTo) throw new InvalidToken("The client certificate has expired.");
  if (cas.length > 0 && !cas.some((ca) => cert.checkIssued(ca) && cert.verify(ca.publicKey))) {
    throw new InvalidToken("The client certificate is not issued by a CA this node trusts.");
  }
  return { validTo };
}

/** Node's TLS verification codes, in words for the InvalidToken description. */
export function tlsRejection(code: string): string {
  if (code === "CERT_HAS_EXPIRED") return "The client certificate has expired.";
  if (code === "CERT_NOT_YET_VALID") return "The client certificate is not yet valid.";
  if (/ISSUER|SELF_SIGNED|UNABLE_TO_VERIFY|CHAIN/.test(code)) {
    return `The client certificate is not issued by a CA this node trusts (${code}).`;
  }
  return `The client certificate was not accepted (${code}).`;
}
