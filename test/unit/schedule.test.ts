/** The harvest schedule: Quartz-style crontab fields and the next instant they name. */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { nextRun, parseSchedule } from "../../src/tasks/schedule.ts";
import type { Schedule } from "../../src/types/node.ts";

const every = { sec: "*", min: "*", hour: "*", mday: "*", mon: "*", wday: "?", year: "*" };
const at = (iso: string) => new Date(iso);
const next = (schedule: Partial<Schedule>, after: string) =>
  nextRun({ ...every, ...schedule }, at(after))?.toISOString();

describe("harvest schedule", () => {
  it("steps: the Node document default 0 0/3 * * * ? * runs every third minute on the minute", () => {
    const schedule = { sec: "0", min: "0/3" };
    assert.equal(next(schedule, "2026-11-23T10:00:00Z"), "2026-11-23T10:03:00.000Z");
    assert.equal(next(schedule, "2026-11-23T10:01:30.500Z"), "2026-11-23T10:03:00.000Z");
    assert.equal(next(schedule, "2026-11-23T10:58:00Z"), "2026-11-23T11:00:00.000Z");
  });

  it("is strictly after the given instant, in whole seconds", () => {
    assert.equal(next({}, "2026-11-23T10:00:00Z"), "2026-11-23T10:00:01.000Z");
    assert.equal(next({}, "2026-11-23T10:00:00.999Z"), "2026-11-23T10:00:01.000Z");
  });

  it("lists, ranges and ranged steps", () => {
    assert.equal(
      next({ sec: "0", min: "15,45", hour: "9-17" }, "2026-11-23T17:45:00Z"),
      "2026-11-24T09:15:00.000Z",
    );
    assert.equal(
      next({ sec: "0", min: "0", hour: "8-20/6" }, "2026-11-23T14:00:00Z"),
      "2026-11-23T20:00:00.000Z",
    );
    assert.equal(
      next({ sec: "30", min: "0", hour: "0" }, "2026-12-31T23:59:59Z"),
      "2027-01-01T00:00:30.000Z",
    );
  });

  it("names of months and days, Sunday being 1", () => {
    const mondays = { sec: "0", min: "0", hour: "3", mday: "?", wday: "MON" };
    assert.equal(next(mondays, "2026-11-23T03:00:00Z"), "2026-11-30T03:00:00.000Z"); // 23 Nov 2026 is a Monday
    assert.equal(next({ ...mondays, wday: "2" }, "2026-11-22T00:00:00Z"), "2026-11-23T03:00:00.000Z");
    assert.equal(
      next({ sec: "0", min: "0", hour: "0", mday: "1", mon: "FEB" }, "2026-11-23T00:00:00Z"),
      "2027-02-01T00:00:00.000Z",
    );
  });

  it("days that do not exist in a month are skipped, and years run out", () => {
    assert.equal(
      next({ sec: "0", min: "0", hour: "0", mday: "31" }, "2026-11-01T00:00:00Z"),
      "2026-12-31T00:00:00.000Z",
    );
    assert.equal(
      next({ sec: "0", min: "0", hour: "0", mday: "29", mon: "2" }, "2026-03-01T00:00:00Z"),
      "2028-02-29T00:00:00.000Z",
    );
    assert.equal(next({ year: "2020" }, "2026-01-01T00:00:00Z"), undefined);
  });

  it("both day fields restricted: either one matches", () => {
    const schedule = { sec: "0", min: "0", hour: "0", mday: "1", wday: "FRI" };
    assert.equal(next(schedule, "2026-11-23T00:00:00Z"), "2026-11-27T00:00:00.000Z");
    assert.equal(next(schedule, "2026-11-28T00:00:00Z"), "2026-12-01T00:00:00.000Z");
  });

  it("refuses entries that are not crontab values, naming the field", () => {
    assert.throws(() => parseSchedule({ ...every, min: "61" }), /min="61".*outside 0-59/);
    assert.throws(() => parseSchedule({ ...every, hour: "5-2" }), /hour="5-2".*backwards/);
    assert.throws(() => parseSchedule({ ...every, sec: "0/0" }), /sec="0\/0".*step/);
    assert.throws(() => parseSchedule({ ...every, mon: "SMARCH" }), /mon="SMARCH"/);
    assert.throws(() => parseSchedule({ ...every, wday: "" }), /wday="".*empty/);
  });
});
