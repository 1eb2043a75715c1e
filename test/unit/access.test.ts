/** The one access function: rightsHolder, accessPolicy ranks, public, administrators and CNs. */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { isAllowed, maySubmit, readFilter } from "../../src/auth/access.ts";
import type { AccessFacts } from "../../src/auth/readers.ts";
import { anonymousSession, sessionFor } from "../../src/auth/session.ts";
import type { AccessRule } from "../../src/types/sysmeta.ts";

const config = { adminSubjects: ["CN=admin"], cnSubjects: ["CN=cn"] };
const object = (accessPolicy: AccessRule[]) => ({ rightsHolder: "CN=owner", accessPolicy });

describe("isAllowed", () => {
  it("gives the rights holder, administrators and CNs every permission", () => {
    for (const subject of ["CN=owner", "CN=admin", "CN=cn"]) {
      assert.ok(isAllowed(sessionFor(subject, config), "changePermission", object([])), subject);
    }
    assert.ok(!isAllowed(sessionFor("CN=other", config), "read", object([])));
  });

  it("ranks changePermission over write over read", () => {
    const rules: AccessRule[] = [{ subjects: ["CN=w"], permissions: ["write"] }];
    const w = sessionFor("CN=w", config);
    assert.ok(isAllowed(w, "read", object(rules)));
    assert.ok(isAllowed(w, "write", object(rules)));
    assert.ok(!isAllowed(w, "changePermission", object(rules)));
  });

  it("lets public and authenticatedUser rules apply to everyone they stand for", () => {
    const open = object([{ subjects: ["public"], permissions: ["read"] }]);
    assert.ok(isAllowed(anonymousSession(), "read", open));
    assert.ok(!isAllowed(anonymousSession(), "write", open));
    const members = object([{ subjects: ["authenticatedUser"], permissions: ["read"] }]);
    assert.ok(!isAllowed(anonymousSession(), "read", members));
    assert.ok(isAllowed(sessionFor("CN=anyone", config), "read", members));
  });

  it("decides alike for frozen system metadata (kept grants), each object by its own policy", () => {
    const freeze = (rules: AccessRule[]): AccessFacts => {
      for (const rule of rules) Object.freeze(rule);
      return Object.freeze({ rightsHolder: "CN=owner", accessPolicy: Object.freeze(rules) as AccessRule[] });
    };
    const open = freeze([{ subjects: ["public"], permissions: ["read"] }]);
    const closed = freeze([{ subjects: ["CN=w"], permissions: ["write"] }]);
    for (let i = 0; i < 2; i++) {
      assert.ok(isAllowed(anonymousSession(), "read", open));
      assert.ok(!isAllowed(anonymousSession(), "read", closed));
      assert.ok(isAllowed(sessionFor("CN=w", config), "write", closed));
      assert.ok(!isAllowed(sessionFor("CN=w", config), "write", open));
    }
  });
});

describe("readFilter and maySubmit", () => {
  it("filters lists by the caller's subjects unless trusted", () => {
    assert.equal(readFilter(sessionFor("CN=admin", config)), undefined);
    assert.deepEqual(
      new Set(readFilter(sessionFor("CN=x", config))),
      new Set(["CN=x", "authenticatedUser", "public"]),
    );
  });

  it("allows submitters on the allow-list only", () => {
    assert.ok(maySubmit(sessionFor("CN=x", config), ["authenticatedUser"]));
    assert.ok(!maySubmit(anonymousSession(), ["authenticatedUser"]));
    assert.ok(!maySubmit(sessionFor("CN=x", config), ["CN=y"]));
    assert.ok(maySubmit(sessionFor("CN=admin", config), ["CN=y"]));
  });
});
