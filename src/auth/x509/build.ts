/**
 * Building X.509 v3 certificates and PKCS#10 certificate requests (RFC 2986) from @peculiar/asn1-x509
 * structures, signed with node:crypto (RSA with SHA-256, or ECDSA P-256 with SHA-256).
 */
import { createHash, type KeyObject, randomBytes, sign } from "node:crypto";
import { AsnConvert, OctetString } from "@peculiar/asn1-schema";
import {
  AlgorithmIdentifier,
  Attribute,
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

export const SERVER_AUTH = "1.3.6.1.5.5.7.3.1";
export const CLIENT_AUTH = "1.3.6.1.5.5.7.3.2";

/** The attribute types a subject names by short name. */
export const ATTRIBUTE_OIDS: Readonly<Record<string, string>> = {
  CN: "2.5.4.3",
  O: "2.5.4.10",
  OU: "2.5.4.11",
  C: "2.5.4.6",
  L: "2.5.4.7",
  ST: "2.5.4.8",
  DC: "0.9.2342.19200300.100.1.25",
};

/** One attribute: a short name (CN, O, OU, C, L, ST, DC) or dotted OID and its value. */
export type Ava = readonly [type: string, value: string];

/**
 * A Name from RDNs written as a subject string reads them (RFC 4514: most specific first), one attribute each:
 * [["CN","urn:node:X"],["DC","dataone"],["DC","org"]] is encoded DC=org, DC=dataone, CN=urn:node:X, which
 * RFC 4514 (and DataONE) print back as `CN=urn:node:X,DC=dataone,DC=org`.
 */
export function nameFromSubjectOrder(avas: readonly Ava[]): Name {
  return new Name(
    [...avas].reverse().map(([type, value]) => {
      const kind = type === "DC" ? "ia5String" : type === "C" ? "printableString" : "utf8String";
      const ava = new AttributeTypeAndValue({
        type: ATTRIBUTE_OIDS[type] ?? type,
        value: new AttributeValue({ [kind]: value }),
      });
      return new RelativeDistinguishedName([ava]);
    }),
  );
}

/** A DataONE node's Name: `CN=<nodeId>,DC=dataone,DC=org`. */
export function nodeName(nodeId: string): Name {
  return nameFromSubjectOrder([
    ["CN", nodeId],
    ["DC", "dataone"],
    ["DC", "org"],
  ]);
}

export function keyIdOf(publicKey: KeyObject): Buffer {
  return createHash("sha1")
    .update(publicKey.export({ type: "spki", format: "der" }))
    .digest();
}

/** A certificate's signer: its Name, private key and key identifier. */
export interface Issuer {
  name: Name;
  key: KeyObject;
  keyId: Buffer;
}

export interface CertificateOptions {
  subject: Name;
  issuer: Issuer;
  publicKey: KeyObject;
  notBefore?: Date | undefined;
  notAfter?: Date | undefined;
  /** A CA certificate (keyCertSign, cRLSign) rather than an end entity's. */
  ca?: boolean | undefined;
  /** Extended key usages of an end entity (default: serverAuth and clientAuth). */
  purposes?: readonly string[] | undefined;
  dnsNames?: readonly string[] | undefined;
  ipAddresses?: readonly string[] | undefined;
  /** Further extensions (e.g. DataONE's SubjectInfo). */
  extra?: readonly Extension[] | undefined;
}

const extension = (extnID: string, value: unknown, critical = false) =>
  new Extension({ extnID, critical, extnValue: new OctetString(AsnConvert.serialize(value)) });

/** The extensions an end entity (or a CA) gets: key usages, extended key usages, alternative names. */
function usageExtensions(o: Omit<CertificateOptions, "subject" | "issuer">): Extension[] {
  // keyEncipherment is an RSA key's (TLS key transport); an EC key signs only.
  const rsa = o.publicKey.asymmetricKeyType === "rsa";
  const list = [
    extension("2.5.29.19", new BasicConstraints({ cA: o.ca ?? false }), true),
    extension(
      "2.5.29.15",
      new KeyUsage(
        o.ca
          ? KeyUsageFlags.keyCertSign | KeyUsageFlags.cRLSign
          : KeyUsageFlags.digitalSignature | (rsa ? KeyUsageFlags.keyEncipherment : 0),
      ),
      true,
    ),
  ];
  if (!o.ca)
    list.push(extension("2.5.29.37", new ExtendedKeyUsage([...(o.purposes ?? [SERVER_AUTH, CLIENT_AUTH])])));
  const names = [
    ...(o.dnsNames ?? []).map((dNSName) => new GeneralName({ dNSName })),
    ...(o.ipAddresses ?? []).map((iPAddress) => new GeneralName({ iPAddress })),
  ];
  if (names.length > 0) list.push(extension("2.5.29.17", new SubjectAlternativeName(names)));
  return [...list, ...(o.extra ?? [])];
}

function signatureAlgorithm(key: KeyObject): AlgorithmIdentifier {
  if (key.asymmetricKeyType === "ec") return new AlgorithmIdentifier({ algorithm: "1.2.840.10045.4.3.2" });
  if (key.asymmetricKeyType === "rsa")
    return new AlgorithmIdentifier({ algorithm: "1.2.840.113549.1.1.11", parameters: null });
  throw new Error(`keys of type ${key.asymmetricKeyType} are not supported (RSA or EC P-256)`);
}

const spkiOf = (publicKey: KeyObject) =>
  AsnConvert.parse(publicKey.export({ type: "spki", format: "der" }), SubjectPublicKeyInfo);

const arrayBuffer = (bytes: Buffer): ArrayBuffer => new Uint8Array(bytes).buffer;

/** A DER certificate signed by `issuer`. */
export function buildCertificate(o: CertificateOptions): Buffer {
  const algorithm = signatureAlgorithm(o.issuer.key);
  const tbs = new TBSCertificate({
    version: 2,
    serialNumber: new Uint8Array([0x01, ...randomBytes(15)]).buffer,
    signature: algorithm,
    issuer: o.issuer.name,
    validity: new Validity({
      notBefore: o.notBefore ?? new Date(Date.now() - 3_600_000),
      notAfter: o.notAfter ?? new Date(Date.now() + 365 * 86_400_000),
    }),
    subject: o.subject,
    subjectPublicKeyInfo: spkiOf(o.publicKey),
    extensions: new Extensions([
      ...usageExtensions(o),
      extension("2.5.29.14", new SubjectKeyIdentifier(keyIdOf(o.publicKey))),
      extension("2.5.29.35", new AuthorityKeyIdentifier({ keyIdentifier: new OctetString(o.issuer.keyId) })),
    ]),
  });
  const tbsDer = Buffer.from(AsnConvert.serialize(tbs));
  const cert = new Certificate({
    tbsCertificate: tbs,
    signatureAlgorithm: algorithm,
    signatureValue: arrayBuffer(sign("sha256", tbsDer, o.issuer.key)),
  });
  return Buffer.from(AsnConvert.serialize(cert));
}

export interface RequestOptions {
  subject: Name;
  publicKey: KeyObject;
  privateKey: KeyObject;
  dnsNames?: readonly string[] | undefined;
  purposes?: readonly string[] | undefined;
}

/**
 * A DER PKCS#10 certificate request: CertificationRequestInfo { version 0, subject, subjectPKInfo,
 * attributes [0] { extensionRequest (1.2.840.113549.1.9.14): the extensions asked for } }, signed with the key.
 */
export function buildCertificateRequest(o: RequestOptions): Buffer {
  const extensionRequest = new Attribute({
    type: "1.2.840.113549.1.9.14",
    values: [AsnConvert.serialize(new Extensions(usageExtensions(o).slice(1)))],
  });
  const info = tlv(0x30, [
    Buffer.from([0x02, 0x01, 0x00]),
    Buffer.from(AsnConvert.serialize(o.subject)),
    Buffer.from(AsnConvert.serialize(spkiOf(o.publicKey))),
    tlv(0xa0, [Buffer.from(AsnConvert.serialize(extensionRequest))]),
  ]);
  const signature = sign("sha256", info, o.privateKey);
  return tlv(0x30, [
    info,
    Buffer.from(AsnConvert.serialize(signatureAlgorithm(o.privateKey))),
    tlv(0x03, [Buffer.from([0x00]), signature]),
  ]);
}

/** One DER element: tag, definite length, contents. */
function tlv(tag: number, parts: readonly Buffer[]): Buffer {
  const body = Buffer.concat(parts);
  const length = body.length;
  let header: number[];
  if (length < 0x80) header = [length];
  else {
    const bytes: number[] = [];
    for (let n = length; n > 0; n = Math.floor(n / 256)) bytes.unshift(n % 256);
    header = [0x80 | bytes.length, ...bytes];
  }
  return Buffer.concat([Buffer.from([tag, ...header]), body]);
}

export function pemOf(label: "CERTIFICATE" | "CERTIFICATE REQUEST", der: Buffer): string {
  const lines = der.toString("base64").match(/.{1,64}/g) ?? [];
  return `-----BEGIN ${label}-----\n${lines.join("\n")}\n-----END ${label}-----\n`;
}
