/**
 * A test PKI made by the tests themselves (EC P-256 keys, X.509 v3 certificates built with @peculiar/asn1-x509
 * and signed with node:crypto): a CA, a second CA nobody trusts, the node's TLS certificate, a CN, an
 * administrator, users, a group member and an equivalent identity (both through the DataONE SubjectInfo
 * extension), an expired certificate and one from the other CA. Files are written to a temp folder.
 */
import { generateKeyPairSync } from "node:crypto";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import type { SubjectInfo } from "../../../src/types/index.ts";
import { type Ava, buildCertificate, type Issuer, keyIdOf, nameOf, pem } from "./x509-build.ts";

export type { Ava };

export interface Issued {
  /** The subject string DataONE derives from the certificate. */
  subject: string;
  cert: string;
  key: string;
  certFile: string;
  keyFile: string;
}

export interface IssueOptions {
  /** RDNs in DER order (the reverse of the subject string), each a set of attributes. */
  rdns: Ava[][];
  subject: string;
  issuer?: Issuer;
  notBefore?: Date;
  notAfter?: Date;
  subjectInfo?: SubjectInfo | string;
  /** A TLS server certificate for localhost and 127.0.0.1. */
  server?: boolean;
  ca?: boolean;
}

/** RDNs in DER order from a plain subject string without escaped characters: "CN=a,O=b" -> [[O=b],[CN=a]]. */
export function rdnsOf(subject: string): Ava[][] {
  return subject
    .split(",")
    .reverse()
    .map((part) => {
      const eq = part.indexOf("=");
      return [[part.slice(0, eq), part.slice(eq + 1)] as Ava];
    });
}

export const GROUP = "CN=matrix-group,DC=dataone,DC=org";
const ORG = "O=d1node,C=US,DC=cilogon,DC=org";
export const USERS = {
  admin: `CN=Test Admin,${ORG}`,
  other: `CN=Other User A1,${ORG}`,
  reader: `CN=Reader B2,${ORG}`,
  writer: `CN=Writer C3,${ORG}`,
  changer: `CN=Changer D4,${ORG}`,
  owner: `CN=Owner E5,${ORG}`,
  member: `CN=Group Member F6,${ORG}`,
  alias: `CN=Alias G7,${ORG}`,
  expired: `CN=Expired H8,${ORG}`,
  untrusted: `CN=Untrusted I9,${ORG}`,
} as const;
export const CN_NODE = "CN=urn:node:TESTCN,DC=dataone,DC=org";
export const MN_NODE = "CN=urn:node:TESTMN,DC=dataone,DC=org";

export interface TestPki {
  dir: string;
  caFile: string;
  otherCaFile: string;
  /** The node's TLS certificate (also the MN's client certificate). */
  server: Issued;
  cn: Issued;
  users: Record<keyof typeof USERS, Issued>;
  /** Issue another certificate from the trusted CA. */
  issue(name: string, options: IssueOptions): Issued;
  /**
   * A node certificate as DataONE issues them (subject CN=<nodeId>,DC=dataone,DC=org), usable both as the
   * node's TLS server certificate (localhost, 127.0.0.1) and as its client certificate.
   */
  node(nodeId: string): Issued;
  close(): void;
}

export function createTestPki(): TestPki {
  const dir = mkdtempSync(path.join(tmpdir(), "d1node-pki-"));
  const write = (name: string, text: string) => {
    const file = path.join(dir, name);
    writeFileSync(file, text, { mode: 0o600 });
    return file;
  };
  const makeCa = (file: string, subject: string): Issuer => {
    const { privateKey, publicKey } = generateKeyPairSync("ec", { namedCurve: "prime256v1" });
    const name = nameOf(rdnsOf(subject));
    const keyId = keyIdOf(publicKey);
    const der = buildCertificate({
      subject: name,
      issuer: { name, key: privateKey, keyId },
      publicKey,
      ca: true,
    });
    write(file, pem(der));
    return { name, key: privateKey, keyId };
  };
  const ca = makeCa("ca.pem", "CN=d1node Test CA,O=d1node,C=US,DC=test,DC=org");
  const otherCa = makeCa("other-ca.pem", "CN=Other Test CA,O=Elsewhere,C=US,DC=test,DC=org");
  const issue = (file: string, options: IssueOptions): Issued => {
    const { privateKey, publicKey } = generateKeyPairSync("ec", { namedCurve: "prime256v1" });
    const der = buildCertificate({
      subject: nameOf(options.rdns),
      issuer: options.issuer ?? ca,
      publicKey,
      notBefore: options.notBefore,
      notAfter: options.notAfter,
      subjectInfo: options.subjectInfo,
      server: options.server,
    });
    const cert = pem(der);
    const key = privateKey.export({ type: "pkcs8", format: "pem" }).toString();
    return {
      subject: options.subject,
      cert,
      key,
      certFile: write(`${file}.pem`, cert),
      keyFile: write(`${file}.key`, key),
    };
  };
  const user = (file: string, subject: string, extra: Partial<IssueOptions> = {}) =>
    issue(file, { rdns: rdnsOf(subject), subject, ...extra });
  const person = (subject: string, more: Partial<SubjectInfo["persons"][number]>) => ({
    subject,
    givenNames: ["Test"],
    familyName: "Person",
    emails: [],
    isMemberOf: [],
    equivalentIdentities: [],
    ...more,
  });
  const day = 86_400_000;
  return {
    dir,
    caFile: path.join(dir, "ca.pem"),
    otherCaFile: path.join(dir, "other-ca.pem"),
    server: issue("server", { rdns: rdnsOf(MN_NODE), subject: MN_NODE, server: true }),
    cn: user("cn", CN_NODE),
    users: {
      admin: user("admin", USERS.admin),
      other: user("other", USERS.other),
      reader: user("reader", USERS.reader),
      writer: user("writer", USERS.writer),
      changer: user("changer", USERS.changer),
      owner: user("owner", USERS.owner),
      member: user("member", USERS.member, {
        subjectInfo: {
          persons: [person(USERS.member, { isMemberOf: [GROUP] })],
          groups: [
            { subject: GROUP, groupName: "matrix", hasMembers: [USERS.member], rightsHolders: [USERS.owner] },
          ],
        },
      }),
      alias: user("alias", USERS.alias, {
        subjectInfo: {
          persons: [person(USERS.alias, { equivalentIdentities: [USERS.owner], verified: true })],
          groups: [],
        },
      }),
      expired: user("expired", USERS.expired, {
        notBefore: new Date(Date.now() - 10 * day),
        notAfter: new Date(Date.now() - day),
      }),
      untrusted: user("untrusted", USERS.untrusted, { issuer: otherCa }),
    },
    issue,
    node: (nodeId) => {
      const subject = `CN=${nodeId},DC=dataone,DC=org`;
      return issue(`node-${nodeId.replace(/\W/g, "_")}`, { rdns: rdnsOf(subject), subject, server: true });
    },
    close: () => rmSync(dir, { recursive: true, force: true }),
  };
}
