import assert from "node:assert/strict";
import { test } from "node:test";
import { createRemovalHold } from "../../../src/store/removal-hold.ts";

test("removals run at once until held, are noted while held, and run again after release", () => {
  const removals = createRemovalHold();
  assert.equal(removals.defer("a"), false);
  const release = removals.hold();
  assert.equal(removals.defer("b"), true);
  assert.equal(removals.defer("c"), true);
  assert.equal(removals.defer("b"), true);
  assert.throws(() => removals.hold(), /already held/);
  assert.deepEqual(release(), ["b", "c"]);
  assert.equal(removals.defer("d"), false);
  removals.hold()();
});
