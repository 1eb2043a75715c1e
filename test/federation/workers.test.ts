/**
 * Background work across processes: two `d1node worker` processes beside a serving CN on one PostgreSQL database
 * share the harvests and never run one twice; a worker killed mid-harvest leaves a lease that lapses and the other
 * worker finishes from the saved position; a `d1node serve --role cn` killed mid-harvest resumes where it stopped.
 */
import assert from "node:assert/strict";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { harvestNode } from "../../src/federation/harvest/harvest.ts";
import { harvestableNode } from "../../src/federation/harvest/registry.ts";
import { openNodeDatabase } from "../../src/node/open-database.ts";
import type { RunningNode } from "../../src/node/start.ts";
import { HARVEST_TASK } from "../../src/tasks/kinds.ts";
import type { Schedule } from "../../src/types/node.ts";
import { startTestFederation, type TestFederation } from "../helpers/nodes/federation.ts";
import { testDialects } from "../helpers/nodes/node.ts";
import { spawnNode } from "../helpers/nodes/process-node.ts";
import {
  type CallCount,
  countCalls,
  fillMemberNode,
  spawnWorker,
  type WorkerProcess,
  writeConfigFile,
} from "../helpers/nodes/worker-process.ts";
import { eventually as eventuallyWithin } from "../helpers/time/eventually.ts";

/** Harvests of thousands of objects on a shared machine: minutes, not seconds. */
const eventually = <T>(what: string, probe: () => Promise<T | undefined>, ms = 240_000) =>
  eventuallyWithin(what, probe, ms);

const NEVER: Schedule = { sec: "0", min: "0", hour: "0", mday: "1", mon: "1", wday: "?", year: "2199" };
const mnId = (i: number) => `urn:node:LOCALMN${i}`;

/** listObjects' total as a node answers it over HTTP (public objects). */
async function listedTotal(baseUrl: string): Promise<number> {
  const response = await fetch(`${baseUrl}/v2/object?count=0`);
  const match = /total="(\d+)"/.exec(await response.text());
  return Number(match?.[1]);
}

/** Which of these identifiers a database holds. */
async function heldAmong(
  db: { objects: { getMany(pids: string[]): Promise<Map<string, unknown>> } },
  pids: string[],
) {
  const held = new Set<string>();
  for (let i = 0; i < pids.length; i += 500) {
    for (const pid of (await db.objects.getMany(pids.slice(i, i + 500))).keys()) held.add(pid);
  }
  return held;
}

function memberNode(fed: TestFederation, i: number): RunningNode {
  const node = fed.mns[i];
  assert.ok(node, `MN${i + 1} runs`);
  return node;
}

const reads = (calls: CallCount, pids: string[]) => pids.map((pid) => calls.sysmetaReads.get(pid) ?? 0);

if (testDialects().includes("postgres")) {
  describe("CN worker processes on one PostgreSQL", () => {
    let fed: TestFederation;
    let cnConfig: string;
    const workers: WorkerProcess[] = [];
    before(async () => {
      // Nothing runs tasks in the test's own process: the worker processes do all of it.
      fed = await startTestFederation("postgres", {
        worker: false,
        settings: (name) => (name === "cn" ? {} : { syncSchedule: NEVER, notifyCn: false }),
      });
      cnConfig = await writeConfigFile(fed.cn, fed.dir, "cn");
    });
    after(async () => {
      for (const worker of workers) await worker.kill("SIGKILL");
      await fed?.close();
    });

    it("two workers share the harvests of two MNs: every object reached the CN once, no task ran twice", async () => {
      const calls = [countCalls(memberNode(fed, 0)), countCalls(memberNode(fed, 1))];
      const pids = [
        await fillMemberNode(memberNode(fed, 0), "w1-", 2500),
        await fillMemberNode(memberNode(fed, 1), "w2-", 2500),
      ];
      const a = await spawnWorker(cnConfig, ["--concurrency", "1"]);
      const b = await spawnWorker(cnConfig, ["--concurrency", "1"]);
      workers.push(a, b);
      // Once the start-up tasks are done, both harvests are due at once; each worker takes one task at a time.
      await eventually("the workers idle", async () => {
        const due = await fed.cn.ctx.db.kysely
          .selectFrom("tasks")
          .select("id")
          .where((eb) =>
            eb.or([
              eb("state", "=", "running"),
              eb.and([eb("state", "=", "ready"), eb("run_at", "<=", Date.now())]),
            ]),
          )
          .execute();
        return due.length === 0 ? true : undefined;
      });
      for (const i of [1, 2]) await fed.cn.ctx.tasks.enqueue(HARVEST_TASK, mnId(i), null);
      const harvests = () => [...a.done(), ...b.done()].filter((task) => task.startsWith(`${HARVEST_TASK} `));
      await eventually("both harvests done", async () => (harvests().length >= 2 ? true : undefined));

      assert.deepEqual(harvests().sort(), [`${HARVEST_TASK} ${mnId(1)}`, `${HARVEST_TASK} ${mnId(2)}`]);
      const harvestsOf = (worker: WorkerProcess) =>
        worker.done().filter((task) => task.startsWith(HARVEST_TASK));
      assert.deepEqual(
        [harvestsOf(a).length, harvestsOf(b).length],
        [1, 1],
        `${a.output()}
${b.output()}`,
      );
      for (const [i, mnPids] of pids.entries()) {
        assert.deepEqual(
          new Set(reads(calls[i] as CallCount, mnPids)),
          new Set([1]),
          "each object's system metadata read once",
        );
        assert.equal((await heldAmong(fed.cn.ctx.db, mnPids)).size, mnPids.length);
      }
      assert.deepEqual(await fed.cn.ctx.tasks.dead(), []);
      // Nothing is left running (the next harvests wait for their scheduled time).
      const running = await fed.cn.ctx.db.kysely
        .selectFrom("tasks")
        .select(["kind", "key"])
        .where("state", "=", "running")
        .execute();
      assert.deepEqual(running, []);
      assert.doesNotMatch(a.output() + b.output(), /failed/);
      // The serving CN (another process's writes, heard through the change feed) lists them all.
      assert.equal(await listedTotal(fed.cn.baseUrl), 5000);
      for (const worker of [a, b]) await worker.kill("SIGTERM");
    });

    it("a worker killed mid-harvest: its lease lapses, another worker finishes; nothing lost or fetched twice but the page in hand", async () => {
      const calls = countCalls(memberNode(fed, 2));
      const pids = await fillMemberNode(memberNode(fed, 2), "w3-", 3000);
      const a = await spawnWorker(cnConfig, ["--lease-seconds", "2"]);
      workers.push(a);
      await fed.cn.ctx.tasks.enqueue(HARVEST_TASK, mnId(3), null);
      // Past the first page (1000 objects): that page is written and the position saved.
      await eventually("the harvest under way", async () =>
        calls.sysmetaReads.size > 1300 ? true : undefined,
      );
      await a.kill("SIGKILL");
      const atKill = await heldAmong(fed.cn.ctx.db, pids);
      assert.ok(atKill.size >= 1000 && atKill.size < pids.length, `held at the kill: ${atKill.size}`);

      const b = await spawnWorker(cnConfig, ["--lease-seconds", "2"]);
      workers.push(b);
      await eventually("the harvest finished by the other worker", async () =>
        b.done().includes(`${HARVEST_TASK} ${mnId(3)}`) ? true : undefined,
      ).catch((error: Error) => {
        throw new Error(`${error.message}\n${b.output()}\nreads: ${calls.sysmetaReads.size}`);
      });
      assert.match(b.output(), new RegExp(`task ${HARVEST_TASK} ${mnId(3)} \\(run 2\\) done`));
      assert.equal((await heldAmong(fed.cn.ctx.db, pids)).size, pids.length, "nothing lost");
      const counts = reads(calls, pids);
      assert.ok(counts.every((n) => n >= 1));
      // What the CN held at the kill was not fetched again; at most the page in hand is.
      assert.ok(
        pids.every((pid) => !atKill.has(pid) || calls.sysmetaReads.get(pid) === 1),
        "objects stored before the kill are not fetched again",
      );
      assert.ok(counts.filter((n) => n > 1).length <= 1000);
      assert.deepEqual(await fed.cn.ctx.tasks.dead(), []);
      assert.equal(await listedTotal(fed.cn.baseUrl), 8000);
      await b.kill("SIGTERM");
    });

    it("a harvest run whose lease was lost stops before its next page, the position kept", async () => {
      const node = await harvestableNode(fed.cn.ctx, mnId(1));
      assert.ok(node);
      const before = await fed.cn.ctx.db.harvestProgress.load(mnId(1));
      await assert.rejects(harvestNode(fed.cn.ctx, node, { signal: AbortSignal.abort() }), {
        name: "AbortError",
      });
      const after = await fed.cn.ctx.db.harvestProgress.load(mnId(1));
      assert.deepEqual(after?.harvestedTo, before?.harvestedTo);
    });
  });
}

describe("a CN process killed mid-harvest (SQLite)", () => {
  let fed: TestFederation;
  after(async () => {
    await fed?.close();
  });

  it("restarts on the same data and resumes from its saved position", async () => {
    fed = await startTestFederation("sqlite", {
      mnCount: 1,
      worker: false,
      settings: (name) => (name === "cn" ? {} : { syncSchedule: NEVER, notifyCn: false }),
    });
    const calls = countCalls(memberNode(fed, 0));
    const pids = await fillMemberNode(memberNode(fed, 0), "k-", 3000);
    await fed.cn.ctx.tasks.enqueue(HARVEST_TASK, mnId(1), null);
    const config = await writeConfigFile(fed.cn, fed.dir, "cn");
    await fed.cn.close(); // the embedded database belongs to one process: the CN process's from now on

    const cn = await spawnNode(["--config", config]);
    try {
      await eventually("the harvest under way", async () =>
        calls.sysmetaReads.size > 1300 ? true : undefined,
      );
    } finally {
      await cn.kill("SIGKILL");
    }
    const db = await openNodeDatabase({ sqlitePath: path.join(fed.dir, "cn", "d1node.sqlite") });
    let atKill: Set<string>;
    try {
      const progress = await db.kysely
        .selectFrom("harvest_progress")
        .selectAll()
        .where("node_id", "=", mnId(1))
        .executeTakeFirstOrThrow();
      assert.notEqual(progress.window_to, null, "an open window is saved");
      atKill = await heldAmong(db, pids);
    } finally {
      await db.close();
    }
    assert.ok(atKill.size >= 1000 && atKill.size < pids.length, `held at the kill: ${atKill.size}`);

    const again = await spawnNode(["--config", config]);
    try {
      await eventually("the harvest finished", async () =>
        (await listedTotal(again.baseUrl)) === pids.length ? true : undefined,
      );
    } finally {
      await again.kill("SIGTERM");
    }
    assert.ok(reads(calls, pids).every((n) => n >= 1));
    assert.ok(
      pids.every((pid) => !atKill.has(pid) || calls.sysmetaReads.get(pid) === 1),
      "objects stored before the kill are not fetched again",
    );
    assert.ok(reads(calls, pids).filter((n) => n > 1).length <= 1000);
    const reopened = await openNodeDatabase({ sqlitePath: path.join(fed.dir, "cn", "d1node.sqlite") });
    try {
      const progress = await reopened.kysely
        .selectFrom("harvest_progress")
        .selectAll()
        .where("node_id", "=", mnId(1))
        .executeTakeFirstOrThrow();
      assert.equal(progress.window_to, null, "the window closed");
      assert.deepEqual(
        await reopened.kysely.selectFrom("tasks").select("kind").where("state", "=", "dead").execute(),
        [],
      );
    } finally {
      await reopened.close();
    }
  });
});
