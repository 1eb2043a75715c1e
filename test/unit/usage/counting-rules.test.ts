/**
 * COUNTER R5.1's counting rules on one batch (src/services/usage/counting-rules.ts): the double-click rule, one
 * unique count per user-session (subject, else address and user agent, within an hour), decisions that do not
 * depend on the order entries arrive in; a dataset counted once per user-session whichever of its objects were
 * read.
 */
import assert from "node:assert/strict";
import { it } from "node:test";
import type { UsageEvent } from "../../../src/db/types.ts";
import { decide, decideDatasets, sessionOf } from "../../../src/services/usage/counting-rules.ts";

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

it("a dataset counts once per user-session and hour, whichever of its objects were read", () => {
  const datasetsOf = (pid: string) => (pid === "alone" ? [] : pid === "shared" ? ["D", "E"] : ["D"]);
  const isRequest = (pid: string) => pid !== "D";
  const marks = (batch: UsageEvent[], known = batch) => {
    const decisions = decideDatasets(batch, known, datasetsOf, isRequest);
    return batch.map((r) => {
      const d = decisions.get(r.id);
      return `${d?.investigated.join("") ?? ""}/${d?.requested.join("") ?? ""}`;
    });
  };
  // Three files in one session and hour; then another session; then the first session's next hour.
  assert.deepEqual(
    marks([
      read(0, { pid: "f1" }),
      read(60, { pid: "f2" }),
      read(120, { pid: "f3" }),
      read(130, { pid: "f1", ip: "192.0.2.2" }),
      read(3600, { pid: "f2" }),
    ]),
    ["D/D", "/", "/", "D/D", "D/D"],
  );
  // The metadata first: a unique investigation; the first file read after it, the unique request.
  assert.deepEqual(marks([read(0, { pid: "D" }), read(10, { pid: "f1" }), read(20, { pid: "f2" })]), [
    "D/",
    "/D",
    "/",
  ]);
  // An object of two datasets counts in each; one of none in none.
  assert.deepEqual(marks([read(0, { pid: "f1" }), read(10, { pid: "shared" }), read(20, { pid: "alone" })]), [
    "D/D",
    "E/E",
    "/",
  ]);
  // By id, not date: a read logged late, dated before one already counted, is not the session's first.
  const counted = read(600, { pid: "f1" });
  const late = read(300, { pid: "f2" });
  assert.deepEqual(marks([late], [counted, late]), ["/"]);
});
