import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { describe, it } from "node:test";
import { fileURLToPath } from "node:url";
import { InvalidRequest, InvalidSystemMetadata } from "../../../src/errors/exceptions.ts";
import {
  type Group,
  type ObjectFormat,
  type Person,
  parseAccessPolicy,
  parseGroup,
  parseObjectFormat,
  parseObjectFormatList,
  parsePerson,
  parseReplica,
  parseReplicationPolicy,
  parseSubjectInfo,
  type Replica,
  serializeAccessPolicy,
  serializeGroup,
  serializeObjectFormat,
  serializeObjectFormatList,
  serializePerson,
  serializeReplica,
  serializeReplicationPolicy,
  serializeSubjectInfo,
} from "../../../src/types/index.ts";
import { validateAll } from "../../helpers/validation/xmllint.ts";

const FORMAT_LIST = fileURLToPath(
  new URL("../../../data/object-formats/objectFormatListV2.xml", import.meta.url),
);

const assertInvalid = (fn: () => unknown, pattern: RegExp) =>
  assert.throws(
    fn,
    (e: unknown) => e instanceof InvalidRequest && pattern.test(e.description),
    String(pattern),
  );

describe("ObjectFormat", () => {
  const csv: ObjectFormat = {
    formatId: "text/csv",
    formatName: "Comma-separated values",
    formatType: "DATA",
    mediaType: { name: "text/csv", properties: [{ name: "header", value: "present" }] },
    extension: "csv",
  };
  const eml: ObjectFormat = {
    formatId: "eml://ecoinformatics.org/eml-2.1.1",
    formatName: "EML",
    formatType: "METADATA",
  };

  it("loads the shipped format list", () => {
    const formats = parseObjectFormatList(readFileSync(FORMAT_LIST));
    assert.equal(formats.length, 160);
    const byId = new Map(formats.map((f) => [f.formatId, f]));
    assert.deepEqual(byId.get("eml://ecoinformatics.org/eml-2.0.0"), {
      formatId: "eml://ecoinformatics.org/eml-2.0.0",
      formatName: "Ecological Metadata Language, version 2.0.0",
      formatType: "METADATA",
      mediaType: { name: "text/xml", properties: [] },
      extension: "xml",
    });
    assert.equal(formats.filter((f) => f.formatType === "RESOURCE").length, 2);
  });

  it("serializes v1 and v2 lists and single formats, valid and round-tripping", async () => {
    const formats = parseObjectFormatList(readFileSync(FORMAT_LIST));
    const v2 = serializeObjectFormatList(formats, "v2");
    const v1 = serializeObjectFormatList([csv, eml], "v1");
    await validateAll([
      v2,
      v1,
      serializeObjectFormat(csv, "v2"),
      serializeObjectFormat(csv, "v1"),
      serializeObjectFormat(eml, "v2"),
    ]);
    assert.deepEqual(parseObjectFormatList(v2), formats);
    assert.deepEqual(parseObjectFormatList(v1), [
      { formatId: "text/csv", formatName: "Comma-separated values", formatType: "DATA" },
      eml,
    ]);
    assert.deepEqual(parseObjectFormat(serializeObjectFormat(csv, "v2")), csv);
  });

  it("refuses a bad formatType and v2 fields in a v1 document", () => {
    assertInvalid(
      () => parseObjectFormat(serializeObjectFormat(eml, "v2").replace("METADATA", "PICTURE")),
      /formatType/,
    );
    const v1 = serializeObjectFormat(eml, "v1").replace(
      "</formatType>",
      "</formatType><extension>x</extension>",
    );
    assertInvalid(() => parseObjectFormat(v1), /unknown element <extension>/);
  });
});

describe("identity documents", () => {
  const person: Person = {
    subject: "CN=Jane Doe,O=Example,C=US",
    givenNames: ["Jane", "J."],
    familyName: "Doe",
    emails: ["jane@example.org"],
    isMemberOf: ["CN=group"],
    equivalentIdentities: ["http://orcid.org/0000-0000-0000-0000"],
    verified: true,
  };
  const minimalPerson: Person = {
    subject: "CN=x",
    givenNames: ["X"],
    familyName: "Y",
    emails: [],
    isMemberOf: [],
    equivalentIdentities: [],
  };
  const group: Group = {
    subject: "CN=group",
    groupName: "The group",
    hasMembers: ["CN=Jane Doe,O=Example,C=US"],
    rightsHolders: ["CN=owner"],
  };

  it("person, group and subjectInfo are valid and round-trip", async () => {
    const info = { persons: [person, minimalPerson], groups: [group] };
    await validateAll([
      serializePerson(person),
      serializePerson(minimalPerson),
      serializeGroup(group),
      serializeSubjectInfo(info),
      serializeSubjectInfo({ persons: [], groups: [] }),
    ]);
    assert.deepEqual(parsePerson(serializePerson(person)), person);
    assert.deepEqual(parsePerson(serializePerson(minimalPerson)), minimalPerson);
    assert.deepEqual(parseGroup(serializeGroup(group)), group);
    assert.deepEqual(parseSubjectInfo(serializeSubjectInfo(info)), info);
  });

  it("refuses missing required fields", () => {
    assertInvalid(() => parsePerson(serializePerson({ ...person, givenNames: [] })), /givenName/);
    assertInvalid(() => parseGroup(serializeGroup({ ...group, rightsHolders: [] })), /rightsHolder/);
    assertInvalid(
      () => parsePerson(serializePerson(person).replace("<verified>true", "<verified>yes")),
      /verified/,
    );
    const info = serializeSubjectInfo({ persons: [person], groups: [group] });
    const swapped = info.replace(/(<person>.*<\/person>)(<group>.*<\/group>)/, "$2$1");
    assertInvalid(() => parseSubjectInfo(swapped), /subjectInfo\/person> is out of order/);
  });
});

describe("policies and replicas", () => {
  it("accessPolicy is valid, round-trips and refuses unknown permissions", async () => {
    const rules = [
      { subjects: ["public"], permissions: ["read" as const] },
      { subjects: ["CN=a", "CN=b"], permissions: ["write" as const, "changePermission" as const] },
    ];
    const xml = serializeAccessPolicy(rules);
    await validateAll([xml]);
    assert.deepEqual(parseAccessPolicy(xml), rules);
    assertInvalid(() => parseAccessPolicy(xml.replace("write", "delete")), /permission/);
    assert.throws(() => serializeAccessPolicy([]), RangeError);
    assert.throws(
      () => parseAccessPolicy(xml.replace("public", " "), InvalidSystemMetadata),
      (e: unknown) => e instanceof InvalidSystemMetadata && /subject/.test(e.description),
    );
  });

  it("replicationPolicy and replica are valid and round-trip", async () => {
    const policy = {
      replicationAllowed: false,
      numberReplicas: 0,
      preferredMemberNodes: [],
      blockedMemberNodes: ["urn:node:X"],
    };
    const bare = { preferredMemberNodes: [], blockedMemberNodes: [] };
    const replica: Replica = {
      replicaMemberNode: "urn:node:A",
      replicationStatus: "failed",
      replicaVerified: new Date("2024-01-02T03:04:05.678Z"),
    };
    await validateAll([
      serializeReplicationPolicy(policy),
      serializeReplicationPolicy(bare),
      serializeReplica(replica),
    ]);
    assert.deepEqual(parseReplicationPolicy(serializeReplicationPolicy(policy)), policy);
    assert.deepEqual(parseReplicationPolicy(serializeReplicationPolicy(bare)), bare);
    assert.deepEqual(parseReplica(serializeReplica(replica)), replica);
    assertInvalid(
      () => parseReplica(serializeReplica(replica).replace("failed", "lost")),
      /replicationStatus/,
    );
    assertInvalid(
      () => parseReplicationPolicy(serializeReplicationPolicy(policy).replace('"0"', '"99999999999"')),
      /numberReplicas/,
    );
  });
});
