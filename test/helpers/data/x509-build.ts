/**
 * X.509 v3 certificates for tests (ECDSA P-256 keys): the node's own builder (src/auth/x509/build.ts) with the
 * tests' names (multi-valued RDNs, chosen string types) and DataONE's SubjectInfo extension.
 */
import type { KeyObject } from "node:crypto";
import { AsnConvert, OctetString } from "@peculiar/asn1-schema";
import {
  AttributeTypeAndValue,
  AttributeValue,
  Extension,
  Name,
  RelativeDistinguishedName,
} from "@peculiar/asn1-x509";
import {
  ATTRIBUTE_OIDS,
  buildCertificate as buildSigned,
  CLIENT_AUTH,
  type Issuer,
  keyIdOf,
  SERVER_AUTH,
} from "../../../src/auth/x509/build.ts";
import { type SubjectInfo, serializeSubjectInfo } from "../../../src/types/index.ts";

/** One attribute: a short name or dotted OID, the value, and the ASN.1 string type (default: by attribute). */
export type Ava = [
  type: string,
  value: string,
  stringType?: "utf8String" | "printableString" | "ia5String" | "bmpString",
];

export type { Issuer };

const OIDS: Record<string, string> = {
  ...ATTRIBUTE_OIDS,
  SN: "2.5.4.4",
  STREET: "2.5.4.9",
  UID: "0.9.2342.19200300.100.1.1",
  email: "1.2.840.113549.1.9.1",
};
const SUBJECT_INFO_OID = "1.3.6.1.4.1.34998.2.1";

/** A Name; the attributes of a multi-valued RDN are put in DER order (sorted by their encoding). */
export function nameOf(rdns: Ava[][]): Name {
  const ava = ([type, value, stringType]: Ava) => {
    const kind =
      stringType ??
      (type === "DC" || type === "email" ? "ia5String" : type === "C" ? "printableString" : "utf8String");
    return new AttributeTypeAndValue({
      type: OIDS[type] ?? type,
      value: new AttributeValue({ [kind]: value }),
    });
  };
  const der = (a: AttributeTypeAndValue) => Buffer.from(AsnConvert.serialize(a));
  return new Name(
    rdns.map(
      (set) => new RelativeDistinguishedName(set.map(ava).sort((a, b) => Buffer.compare(der(a), der(b)))),
    ),
  );
}

export { keyIdOf };

export interface BuildOptions {
  subject: Name;
  issuer: Issuer;
  publicKey: KeyObject;
  notBefore?: Date | undefined;
  notAfter?: Date | undefined;
  subjectInfo?: SubjectInfo | string | undefined;
  /** Also a TLS server certificate, for localhost and 127.0.0.1 (else a client certificate only). */
  server?: boolean | undefined;
  ca?: boolean;
}

export function buildCertificate(o: BuildOptions): Buffer {
  const extra: Extension[] = [];
  if (o.subjectInfo) {
    const info = o.subjectInfo;
    const xml = Buffer.from(typeof info === "string" ? info : serializeSubjectInfo(info));
    const utf8String = Buffer.concat([Buffer.from([0x0c]), derLength(xml.length), xml]);
    extra.push(new Extension({ extnID: SUBJECT_INFO_OID, extnValue: new OctetString(utf8String) }));
  }
  return buildSigned({
    subject: o.subject,
    issuer: o.issuer,
    publicKey: o.publicKey,
    notBefore: o.notBefore,
    notAfter: o.notAfter ?? new Date(Date.now() + 30 * 86_400_000),
    ca: o.ca,
    purposes: o.server ? [SERVER_AUTH, CLIENT_AUTH] : [CLIENT_AUTH],
    dnsNames: o.server ? ["localhost"] : [],
    ipAddresses: o.server ? ["127.0.0.1"] : [],
    extra,
  });
}

function derLength(length: number): Buffer {
  if (length < 0x80) return Buffer.from([length]);
  const bytes: number[] = [];
  for (let n = length; n > 0; n = Math.floor(n / 256)) bytes.unshift(n % 256);
  return Buffer.from([0x80 | bytes.length, ...bytes]);
}

export function pem(der: Buffer): string {
  const lines = der.toString("base64").match(/.{1,64}/g) ?? [];
  return `-----BEGIN CERTIFICATE-----\n${lines.join("\n")}\n-----END CERTIFICATE-----\n`;
}
