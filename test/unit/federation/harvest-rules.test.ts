/** What a Member Node may change in a record the CN holds (rules.ts). */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { D1Error } from "../../../src/errors/exceptions.ts";
import { authoritativeChanges, checkSameBytes } from "../../../src/federation/harvest/rules.ts";
import type { SystemMetadata } from "../../../src/types/sysmeta.ts";

const NOW = new Date("2026-02-01T00:00:00Z");
const base: SystemMetadata = {
  serialVersion: 3,
  identifier: "p1",
  formatId: "text/csv",
  size: 10,
  checksum: { algorithm: "MD5", value: "abc" },
  submitter: "CN=s",
  rightsHolder: "CN=owner",
  accessPolicy: [{ subjects: ["public"], permissions: ["read"] }],
  archived: false,
  dateUploaded: new Date("2026-01-01T00:00:00Z"),
  dateSysMetadataModified: new Date("2026-01-01T00:00:00Z"),
  originMemberNode: "urn:node:MN1",
  authoritativeMemberNode: "urn:node:MN1",
  replicas: [{ replicaMemberNode: "urn:node:MN1", replicationStatus: "completed", replicaVerified: NOW }],
};
const invalid = (description: RegExp) => (error: unknown) =>
  error instanceof D1Error &&
  error.exception === "InvalidSystemMetadata" &&
  description.test(error.description);

describe("harvest rules", () => {
  it("an unchanged document changes nothing", () => {
    assert.equal(authoritativeChanges(base, { ...base, serialVersion: 9 }), undefined);
  });

  it("access, rights holder, obsoletedBy (once) and archived come from the authoritative node", () => {
    const changes = authoritativeChanges(base, {
      ...base,
      rightsHolder: "CN=new",
      obsoletedBy: "p2",
      archived: true,
      accessPolicy: [],
    });
    assert.equal(changes?.rightsHolder, "CN=new");
    assert.equal(changes?.obsoletedBy, "p2");
    assert.equal(changes?.archived, true);
    assert.deepEqual(changes?.accessPolicy, []);
    assert.equal(changes?.replicas, undefined, "the replica list is the CN's own");
  });

  it("archived on the CN stays archived; obsoletedBy and seriesId do not change once set", () => {
    const archived = { ...base, archived: true, obsoletedBy: "p2", seriesId: "s1" };
    assert.equal(authoritativeChanges(archived, { ...archived, archived: false }), undefined);
    assert.throws(
      () => authoritativeChanges(archived, { ...archived, obsoletedBy: "p3" }),
      invalid(/obsoletedBy cannot change/),
    );
    assert.throws(
      () => authoritativeChanges(archived, { ...archived, seriesId: "s2" }),
      invalid(/seriesId cannot change/),
    );
  });

  it("size and checksum never change", () => {
    assert.throws(() => checkSameBytes(base, { ...base, size: 11 }), invalid(/size cannot change/));
    assert.throws(
      () => checkSameBytes(base, { ...base, checksum: { algorithm: "MD5", value: "def" } }),
      invalid(/checksum cannot change/),
    );
    // Another algorithm cannot be compared; upper-case hex is the same value.
    checkSameBytes(base, { ...base, checksum: { algorithm: "SHA-1", value: "xyz" } });
    checkSameBytes(base, { ...base, checksum: { algorithm: "MD5", value: "ABC" } });
  });
});
