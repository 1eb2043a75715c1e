/** A failed task's log entry: expected conditions are one line without a stack trace; bugs keep the error. */
import assert from "node:assert/strict";
import { test } from "node:test";
import { NotFound } from "../../src/errors/exceptions.ts";
import { logTaskFailure, RetryLater } from "../../src/tasks/failure-log.ts";

function logged(error: unknown) {
  const lines: { details: Record<string, unknown>; message: string }[] = [];
  logTaskFailure(
    { warn: (details, message) => lines.push({ details: { ...details }, message }) },
    { kind: "refresh", key: "p1" },
    error,
  );
  assert.equal(lines.length, 1);
  return lines[0] as { details: Record<string, unknown>; message: string };
}

test("an expected retry is one line naming the task and why, with no error object (no stack trace)", () => {
  const entry = logged(new RetryLater('"p1" changed during its refresh; retrying'));
  assert.equal(
    entry.message,
    'task refresh p1 failed, retried later: "p1" changed during its refresh; retrying',
  );
  assert.equal(entry.details.err, undefined);
});

test("a DataONE exception from a peer is one line too", () => {
  const entry = logged(new NotFound("No object p1."));
  assert.match(entry.message, /^task refresh p1 failed, retried later: NotFound: No object p1\.$/);
  assert.equal(entry.details.err, undefined);
});

test("anything else is a bug: the error (with its stack) is kept", () => {
  const bug = new TypeError("x is undefined");
  const entry = logged(bug);
  assert.equal(entry.message, "task failed");
  assert.equal(entry.details.err, bug);
});
