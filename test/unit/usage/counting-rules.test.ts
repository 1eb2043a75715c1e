/**
 * COUNTER R5.1's counting rules on one batch (src/services/usage/counting-rules.ts): the double-click rule, one
 * unique count per user-session (subject, else address and user agent, within an hour), decisions that do not
 * depend on the order entries arrive in.
 */
import assert from "node:assert/strict";
import { it } from "node:test";
import type { UsageEvent } from "../../../src/db/types.ts";
import { decide, sessionOf } from "../../../src/services/usage/counting-rules.ts";

const T0 = Date.UTC(2025, 2, 10, 10, 0, 0);
let nextId = 1;
function read(seconds: number, who: Partial<UsageEvent> = {}): UsageEvent {
  return {
    id: nextId++,
    pid: "p",
    event: "read",
    ip: "192.0.2.1",
    userAgent: "Firefox",
    subject: "public",
    dateLogged: T0 + seconds * 1000,
    ...who,
  };
}
const totals = (batch: UsageEvent[], known = batch) => {
  const decisions = decide(batch, known);
  return batch.map((r) => {
    const d = decisions.get(r.id);
    return `${d?.total ? "T" : "-"}${d?.unique ? "U" : "-"}`;
  });
};

it("counts clicks of one session within 30 s once, and a chain of them once", () => {
  assert.deepEqual(
    totals([read(0), read(29), read(31)]),
    ["TU", "--", "--"],
    "31 s after the first, 2 after the last",
  );
  assert.deepEqual(totals([read(0), read(31)]), ["TU", "T-"]);
  assert.deepEqual(totals([read(0), read(30)]), ["TU", "--"], "30 s is within");
});

it("a user-session is the subject when known, else address and user agent; each counts once an hour", () => {
  assert.equal(
    sessionOf(read(0, { subject: "CN=alice" })),
    sessionOf(read(0, { subject: "CN=alice", ip: "x" })),
  );
  assert.notEqual(sessionOf(read(0)), sessionOf(read(0, { userAgent: "Safari" })));
  assert.deepEqual(
    totals([read(0), read(60, { ip: "192.0.2.2" }), read(120, { userAgent: "Safari" }), read(3600)]),
    ["TU", "TU", "TU", "TU"],
  );
  assert.deepEqual(totals([read(0, { subject: "CN=a" }), read(60, { subject: "CN=a", ip: "other" })]), [
    "TU",
    "T-",
  ]);
});

it("the double click does not reach across the hour (another session)", () => {
  // 10:59:50 and 11:00:05: two sessions, so both count.
  assert.deepEqual(totals([read(3590), read(3605)]), ["TU", "TU"]);
});

it("an entry arriving late is judged against those counted before it, whatever its date", () => {
  const first = read(20);
  const late = read(5);
  // The late one (higher id, earlier date) is within 30 s of one counted before: neither total nor unique.
  assert.deepEqual(totals([late], [first, late]), ["--"]);
  const elsewhere = read(900, { pid: "q" });
  assert.deepEqual(totals([elsewhere], [first, late, elsewhere]), ["TU"], "another item");
});
