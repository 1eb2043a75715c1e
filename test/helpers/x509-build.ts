/** X.509 v3 certificates for tests: @peculiar/asn1-x509 structures, signed with node:crypto (ECDSA P-256). */
import { createHash, type KeyObject, randomBytes, sign } from "node:crypto";
import { AsnConvert, OctetString } from "@peculiar/asn1-schema";
import {
  AlgorithmIdentifier,
  AttributeTypeAndValue,
  AttributeValue,
  AuthorityKeyIdentifier,
  BasicConstraints,
  Certificate,
  ExtendedKeyUsage,
  Extension,
  Extensions,
  GeneralName,
  KeyUsage,
  KeyUsageFlags,
  Name,
  RelativeDistinguishedName,
  SubjectAlternativeName,
  SubjectKeyIdentifier,
  SubjectPublicKeyInfo,
  TBSCertificate,
  Validity,
} from "@peculiar/asn1-x509";
import { type SubjectInfo, serializeSubjectInfo } from "../../src/types/index.ts";

/** One attribute: a short name or dotted OID, the value, and the ASN.1 string type (default: by attribute). */
export type Ava = [
  type: string,
  value: string,
  stringType?: "utf8String" | "printableString" | "ia5String" | "bmpString",
];

export interface Issuer {
  name: Name;
  key: KeyObject;
  keyId: Buffer;
}

const OIDS: Record<string, string> = {
  CN: "2.5.4.3",
  O: "2.5.4.10",
  OU: "2.5.4.11",
  C: "2.5.4.6",
  L: "2.5.4.7",
  ST: "2.5.4.8",
  SN: "2.5.4.4",
  STREET: "2.5.4.9",
  DC: "0.9.2342.19200300.100.1.25",
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

export function keyIdOf(publicKey: KeyObject): Buffer {
  return createHash("sha1")
    .update(publicKey.export({ type: "spki", format: "der" }))
    .digest();
}

export interface BuildOptions {
  subject: Name;
  issuer: Issuer;
  publicKey: KeyObject;
  notBefore?: Date | undefined;
  notAfter?: Date | undefined;
  subjectInfo?: SubjectInfo | string | undefined;
  server?: boolean | undefined;
  ca?: boolean;
}

export function buildCertificate(o: BuildOptions): Buffer {
  const ext = (extnID: string, value: unknown, critical = false) =>
    new Extension({ extnID, critical, extnValue: new OctetString(AsnConvert.serialize(value)) });
  const extensions = [
    ext("2.5.29.19", new BasicConstraints({ cA: o.ca ?? false }), true),
    ext(
      "2.5.29.15",
      new KeyUsage(o.ca ? KeyUsageFlags.keyCertSign | KeyUsageFlags.cRLSign : KeyUsageFlags.digitalSignature),
      true,
    ),
    ext("2.5.29.14", new SubjectKeyIdentifier(keyIdOf(o.publicKey))),
    ext("2.5.29.35", new AuthorityKeyIdentifier({ keyIdentifier: new OctetString(o.issuer.keyId) })),
  ];
  if (!o.ca) {
    const purposes = o.server ? ["1.3.6.1.5.5.7.3.1", "1.3.6.1.5.5.7.3.2"] : ["1.3.6.1.5.5.7.3.2"];
    extensions.push(ext("2.5.29.37", new ExtendedKeyUsage(purposes)));
  }
  if (o.server) {
    const names = [new GeneralName({ dNSName: "localhost" }), new GeneralName({ iPAddress: "127.0.0.1" })];
    extensions.push(ext("2.5.29.17", new SubjectAlternativeName(names)));
  }
  if (o.subjectInfo) {
    const info = o.subjectInfo;
    const xml = Buffer.from(typeof info === "string" ? info : serializeSubjectInfo(info));
    const utf8String = Buffer.concat([Buffer.from([0x0c]), derLength(xml.length), xml]);
    extensions.push(new Extension({ extnID: SUBJECT_INFO_OID, extnValue: new OctetString(utf8String) }));
  }
  const ecdsaSha256 = new AlgorithmIdentifier({ algorithm: "1.2.840.10045.4.3.2" });
  const tbs = new TBSCertificate({
    version: 2,
    serialNumber: new Uint8Array([0x01, ...randomBytes(15)]).buffer,
    signature: ecdsaSha256,
    issuer: o.issuer.name,
    validity: new Validity({
      notBefore: o.notBefore ?? new Date(Date.now() - 3_600_000),
      notAfter: o.notAfter ?? new Date(Date.now() + 30 * 86_400_000),
    }),
    subject: o.subject,
    subjectPublicKeyInfo: AsnConvert.parse(
      o.publicKey.export({ type: "spki", format: "der" }),
      SubjectPublicKeyInfo,
    ),
    extensions: new Extensions(extensions),
  });
  const tbsDer = Buffer.from(AsnConvert.serialize(tbs));
  const signature = sign("sha256", tbsDer, o.issuer.key);
  const cert = new Certificate({
    tbsCertificate: tbs,
    signatureAlgorithm: ecdsaSha256,
    signatureValue: signature.buffer.slice(signature.byteOffset, signature.byteOffset + signature.length),
  });
  return Buffer.from(AsnConvert.serialize(cert));
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
