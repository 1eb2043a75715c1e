/** Subject expansion from SubjectInfo: the examples of d1_common.cert.subject_info, and the symbolic subjects. */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { expandSubjects } from "../../../src/auth/subjects.ts";
import type { Group, Person, SubjectInfo } from "../../../src/types/index.ts";

const person = (subject: string, more: Partial<Person> = {}): Person => ({
  subject,
  givenNames: ["G"],
  familyName: "F",
  emails: [],
  isMemberOf: [],
  equivalentIdentities: [],
  ...more,
});
const group = (subject: string, hasMembers: string[]): Group => ({
  subject,
  groupName: subject,
  hasMembers,
  rightsHolders: ["R"],
});

/**
 * "A = person subject A, authenticated by certificate; B = person subject B; C = equivalent to A; D = equivalent
 * to B; E = equivalent to D; F = group with members G, H, B; J = group with members K, L, F; M = group with
 * members E, N; N = group with members C, D".
 */
const EXAMPLE: SubjectInfo = {
  persons: [
    person("A"),
    person("B"),
    person("C", { equivalentIdentities: ["A"] }),
    person("A", { equivalentIdentities: ["C"] }),
    person("D", { equivalentIdentities: ["B"] }),
    person("E", { equivalentIdentities: ["D"] }),
  ],
  groups: [
    group("F", ["G", "H", "B"]),
    group("J", ["K", "L", "F"]),
    group("M", ["E", "N"]),
    group("N", ["C", "D"]),
  ],
};

describe("expandSubjects", () => {
  it("follows equivalent identities and group memberships from the authenticated subject only", () => {
    const subjects = expandSubjects("A", EXAMPLE);
    // "Given ACL containing: N ... C is equivalent to A, and A is authenticated. Authorization: Granted"
    assert.ok(subjects.has("N"));
    // "Given ACL containing: D ... B is a Person, but it's unauthenticated. Authorization: Denied"
    assert.ok(!subjects.has("D"));
    // "Given ACL containing: F ... Authorization: Denied"
    assert.ok(!subjects.has("F"));
    assert.deepEqual([...subjects].sort(), ["A", "C", "M", "N", "authenticatedUser"]);
  });

  it("adds verifiedUser for a verified person, and groups named by isMemberOf (as groups only)", () => {
    const info: SubjectInfo = {
      persons: [
        person("me", { verified: true, isMemberOf: ["team", "someone"] }),
        person("someone", { equivalentIdentities: ["x"] }),
      ],
      groups: [group("team", []), group("all-users", ["authenticatedUser"])],
    };
    const subjects = expandSubjects("me", info);
    assert.deepEqual([...subjects].sort(), [
      "all-users",
      "authenticatedUser",
      "me",
      "someone",
      "team",
      "verifiedUser",
    ]);
  });

  it("survives circular references", () => {
    const info: SubjectInfo = {
      persons: [person("a", { equivalentIdentities: ["b"] }), person("b", { equivalentIdentities: ["a"] })],
      groups: [group("g", ["a", "g"])],
    };
    assert.deepEqual([...expandSubjects("a", info)].sort(), ["a", "authenticatedUser", "b", "g"]);
  });
});
