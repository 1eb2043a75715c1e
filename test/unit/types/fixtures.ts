/** Shared fixtures for the types tests: sample documents and full/minimal values. */
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import type { SystemMetadata } from "../../../src/types/sysmeta.ts";

/** Hand-written DataONE documents, valid and (in invalid/) not, for the XSDs in schemas/. */
export const SCHEMA_SAMPLES = fileURLToPath(new URL("../../fixtures/schema-samples/", import.meta.url));
/** DataONE's own test data (from d1_python): tricky identifiers, unicode strings. */
export const THIRD_PARTY = fileURLToPath(new URL("../../fixtures/third-party/", import.meta.url));

export function sample(name: string): string {
  return readFileSync(`${SCHEMA_SAMPLES}${name}`, "utf8");
}

/** Rows of tricky_identifiers_unicode.utf8.txt: description, identifier (unescaped), ... */
export function trickyIdentifiers(): { description: string; identifier: string }[] {
  const text = readFileSync(`${THIRD_PARTY}tricky_identifiers_unicode.utf8.txt`, "utf8");
  return text
    .split("\n")
    .filter((line) => line !== "" && !line.startsWith("#"))
    .map((line) => {
      const [description = "", identifier = ""] = line.split("\t");
      return { description, identifier };
    });
}

export const date = (iso: string): Date => new Date(iso);

export function minimalSysmeta(): SystemMetadata {
  return {
    identifier: "pid-1",
    formatId: "text/csv",
    size: 0,
    checksum: { algorithm: "MD5", value: "d41d8cd98f00b204e9800998ecf8427e" },
    rightsHolder: "CN=owner",
    accessPolicy: [],
    replicas: [],
  };
}

export function fullSysmeta(): SystemMetadata {
  return {
    serialVersion: 7,
    identifier: "urn:uuid:3f0b6a2e-0000-4000-8000-000000000001",
    formatId: "eml://ecoinformatics.org/eml-2.1.1",
    size: 9007199254740991,
    checksum: {
      algorithm: "SHA-256",
      value: "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
    },
    submitter: "CN=Test User,O=Example & Co <x>,C=US,DC=cilogon,DC=org",
    rightsHolder: 'CN=Rights "Holder"',
    accessPolicy: [
      { subjects: ["public"], permissions: ["read"] },
      { subjects: ["CN=a", "CN=b"], permissions: ["write", "changePermission"] },
    ],
    replicationPolicy: {
      replicationAllowed: true,
      numberReplicas: 3,
      preferredMemberNodes: ["urn:node:A", "urn:node:B"],
      blockedMemberNodes: ["urn:node:C"],
    },
    obsoletes: "pid-0",
    obsoletedBy: "pid-2",
    archived: false,
    dateUploaded: date("2024-01-02T03:04:05.678Z"),
    dateSysMetadataModified: date("2024-01-02T03:04:06.001Z"),
    originMemberNode: "urn:node:TESTMN",
    authoritativeMemberNode: "urn:node:TESTMN",
    replicas: [
      {
        replicaMemberNode: "urn:node:TESTMN",
        replicationStatus: "completed",
        replicaVerified: date("2024-01-02T03:04:05.678Z"),
      },
      {
        replicaMemberNode: "urn:node:OTHER",
        replicationStatus: "queued",
        replicaVerified: date("2024-02-02T00:00:00.000Z"),
      },
    ],
    seriesId: "series-1",
    mediaType: {
      name: "text/csv",
      properties: [
        { name: "charset", value: "UTF-8" },
        { name: "header", value: "present" },
      ],
    },
    fileName: "data ü & <more>.csv",
  };
}

/** A sysmeta document with `fields` replacing the defaults (a value of undefined leaves the element out). */
export function sysmetaDoc(
  fields: Record<string, string | undefined> = {},
  ns = "http://ns.dataone.org/service/types/v2.0",
): string {
  const defaults: Record<string, string | undefined> = {
    serialVersion: "<serialVersion>1</serialVersion>",
    identifier: "<identifier>pid-1</identifier>",
    formatId: "<formatId>text/csv</formatId>",
    size: "<size>12</size>",
    checksum: '<checksum algorithm="MD5">6F5902AC237024BDD0C176CB93063DC4</checksum>',
    submitter: "<submitter>CN=me</submitter>",
    rightsHolder: "<rightsHolder>CN=me</rightsHolder>",
    rest: "",
  };
  const merged = { ...defaults, ...fields };
  const body = Object.values(merged)
    .filter((v) => v !== undefined)
    .join("");
  return `<?xml version="1.0" encoding="UTF-8"?><ns1:systemMetadata xmlns:ns1="${ns}">${body}</ns1:systemMetadata>`;
}
