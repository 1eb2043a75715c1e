/** The durable task queue and its workers, on SQLite and PostgreSQL. */
import assert from "node:assert/strict";
import { before, describe, it } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";
import { taskRepository } from "../../../src/db/tasks.ts";
import type { Database, TaskStore } from "../../../src/db/types.ts";
import {
  PermanentTaskError,
  runDueTasks,
  startWorker,
  type TaskHandlers,
  type WorkerContext,
} from "../../../src/tasks/worker.ts";
import { forEachDialect } from "../../helpers/db/databases.ts";
import { TestClock } from "../../helpers/time/clock.ts";

/** A worker's context: its queue and handlers, nothing of a node. */
interface QueueOnly extends WorkerContext<QueueOnly> {}
const contextOf = (tasks: TaskStore, taskHandlers: TaskHandlers<QueueOnly>): QueueOnly => ({
  tasks,
  taskHandlers,
});

forEachDialect((name, open) => {
  describe("task queue", () => {
    let db: Database;
    let queue: TaskStore;
    before(async () => {
      db = await open();
      queue = db.tasks;
    });

    it("keeps one waiting task per kind and key, with the earlier time and the latest payload", async () => {
      const later = new Date(Date.now() + 60_000);
      await queue.enqueue("dedupe", "k", { n: 1 }, { runAt: later });
      await queue.enqueue("dedupe", "k", { n: 2 });
      await queue.enqueue("dedupe", "k", { n: 3 }, { runAt: later });
      await queue.enqueue("dedupe", "other", { n: 4 }, { runAt: later });
      assert.deepEqual(await queue.pending(), { dedupe: 2 });
      const claimed = await queue.claim(["dedupe"], 10, 60_000);
      assert.deepEqual(
        claimed.map((t) => [t.key, t.payload, t.attempts]),
        [["k", { n: 3 }, 1]],
      );
      // While it runs, the same key may wait again (periodic work re-enqueues itself).
      await queue.enqueue("dedupe", "k", { n: 5 }, { runAt: later });
      assert.deepEqual(await queue.pending(), { dedupe: 3 });
      await queue.complete(claimed[0] as (typeof claimed)[0]);
      assert.deepEqual(await queue.pending(), { dedupe: 2 });
    });

    it("leases: a claimed task is not claimed again until its lease lapses, and a lapsed owner cannot finish it", async () => {
      const clock = new TestClock();
      const queue = taskRepository(db.kysely, name, clock);
      await queue.enqueue("lease", "a", null);
      const [first] = await queue.claim(["lease"], 5, 150);
      assert.ok(first);
      clock.advance(149);
      assert.deepEqual(await queue.claim(["lease"], 5, 150), []);
      clock.advance(2);
      const [second] = await queue.claim(["lease"], 5, 60_000);
      assert.equal(second?.id, first.id);
      assert.equal(second?.attempts, 2);
      assert.equal(await queue.extendLease(first, 60_000), false);
      await queue.complete(first); // not the owner any more: nothing happens
      assert.deepEqual(await queue.pending(), { lease: 1, dedupe: 2 });
      assert.equal(await queue.extendLease(second as typeof first, 60_000), true);
      await queue.complete(second as typeof first);
      assert.equal((await queue.pending()).lease, undefined);
    });

    it("retries after a failure at the given time, keeps dead tasks, and lets a newer waiting task supersede a retry", async () => {
      const clock = new TestClock();
      const queue = taskRepository(db.kysely, name, clock);
      await queue.enqueue("retry", "r", null);
      const [task] = await queue.claim(["retry"], 1, 60_000);
      assert.ok(task);
      await queue.fail(task, "first failure", new Date(clock.now() + 100));
      clock.advance(99);
      assert.deepEqual(await queue.claim(["retry"], 1, 60_000), []);
      clock.advance(1);
      const [again] = await queue.claim(["retry"], 1, 60_000);
      assert.equal(again?.attempts, 2);
      await queue.fail(again as typeof task, "for good", undefined);
      assert.deepEqual(
        (await queue.dead()).map((t) => [t.kind, t.key, t.attempts, t.lastError]),
        [["retry", "r", 2, "for good"]],
      );

      await queue.enqueue("retry", "s", { old: true });
      const [running] = await queue.claim(["retry"], 1, 60_000);
      await queue.enqueue("retry", "s", { old: false });
      await queue.fail(running as typeof task, "failed while a newer one waits", new Date(clock.now()));
      const [newer] = await queue.claim(["retry"], 5, 60_000);
      assert.deepEqual(newer?.payload, { old: false });
      assert.deepEqual(await queue.claim(["retry"], 5, 60_000), []);
      await queue.complete(newer as typeof task);
    });

    it("runDueTasks runs due tasks and those they enqueue; errors back off; PermanentTaskError dies", async () => {
      const seen: string[] = [];
      let flaky = 0;
      const handlers: TaskHandlers<QueueOnly> = {
        chain: async (ctx, task) => {
          seen.push(`chain ${task.key}`);
          const n = Number(task.key);
          if (n < 3) await ctx.tasks.enqueue("chain", String(n + 1), null);
        },
        flaky: async () => {
          flaky += 1;
          throw new Error("the remote node is away");
        },
        doomed: async () => {
          throw new PermanentTaskError("bad input");
        },
      };
      const ctx = contextOf(queue, handlers);
      await queue.enqueue("chain", "1", null);
      await queue.enqueue("flaky", "f", null);
      await queue.enqueue("doomed", "d", null);
      assert.equal(await runDueTasks(ctx), 5);
      assert.deepEqual(seen, ["chain 1", "chain 2", "chain 3"]);
      assert.equal(flaky, 1);
      assert.equal((await queue.pending()).flaky, 1, "waits for its retry");
      assert.ok((await queue.dead()).some((t) => t.kind === "doomed" && t.lastError === "bad input"));
      assert.equal(await runDueTasks(ctx), 0, "the retry is not due yet");
    });

    it("a worker runs tasks as they are enqueued and stops cleanly", async () => {
      const done: string[] = [];
      const handlers: TaskHandlers<QueueOnly> = {
        ping: async (_ctx, task) => {
          done.push(task.key);
        },
      };
      const worker = startWorker(contextOf(queue, handlers), queue, handlers, { pollMs: 5_000 });
      const started = Date.now();
      for (let i = 0; i < 20; i += 1) await queue.enqueue("ping", `p${i}`, null);
      while (done.length < 20 && Date.now() - started < 5_000) await sleep(10);
      assert.equal(done.length, 20);
      assert.ok(Date.now() - started < 2_000, "woken by enqueue, not by the 5 s poll");
      await worker.stop();
      assert.equal((await queue.pending()).ping, undefined);
    });

    it("a kind with a limit never holds more slots than it: the other kinds still run", async () => {
      let longRunning = 0;
      let mostLongAtOnce = 0;
      const quickDone: string[] = [];
      let release: () => void = () => undefined;
      const released = new Promise<void>((resolve) => {
        release = resolve;
      });
      const handlers: TaskHandlers<QueueOnly> = {
        long: async () => {
          longRunning += 1;
          mostLongAtOnce = Math.max(mostLongAtOnce, longRunning);
          await released;
          longRunning -= 1;
        },
        quick: async (_ctx, task) => {
          quickDone.push(task.key);
        },
      };
      const worker = startWorker(contextOf(queue, handlers), queue, handlers, {
        concurrency: 4,
        limits: { long: 2 },
        pollMs: 20,
      });
      for (let i = 0; i < 6; i += 1) await queue.enqueue("long", `l${i}`, null);
      for (let i = 0; i < 3; i += 1) await queue.enqueue("quick", `q${i}`, null);
      const until = Date.now() + 10_000;
      while (quickDone.length < 3 && Date.now() < until) await sleep(10);
      assert.equal(quickDone.length, 3, "the quick tasks ran while the long ones held their slots");
      assert.equal(mostLongAtOnce, 2);
      release();
      while ((await queue.pending()).long !== undefined && Date.now() < until) await sleep(10);
      await worker.stop();
      assert.equal(mostLongAtOnce, 2);
      assert.equal((await queue.pending()).long, undefined);
    });

    it("a run whose lease is lost (another worker may have the task) is told through task.signal", async () => {
      let aborted: unknown;
      let started = false;
      const handlers: TaskHandlers<QueueOnly> = {
        stalled: async (_ctx, task) => {
          started = true;
          await new Promise<void>((resolve) => task.signal?.addEventListener("abort", () => resolve()));
          aborted = task.signal?.reason;
        },
      };
      const worker = startWorker(contextOf(queue, handlers), queue, handlers, { leaseMs: 300, pollMs: 20 });
      await queue.enqueue("stalled", "s1", null);
      const until = Date.now() + 5_000;
      while (!started && Date.now() < until) await sleep(10);
      // As if this worker had stalled past its lease and another had claimed the task.
      await db.kysely
        .updateTable("tasks")
        .set({ lease_owner: "another worker" })
        .where("kind", "=", "stalled")
        .execute();
      while (aborted === undefined && Date.now() < until) await sleep(10);
      assert.match(String(aborted), /lease of task stalled s1 was lost/);
      await worker.stop();
      await db.kysely.deleteFrom("tasks").where("kind", "=", "stalled").execute();
    });

    if (name === "postgres") {
      it("two worker processes on one database never run a task twice", async () => {
        const other = await open(db);
        const otherQueue = other.tasks;
        const runs = new Map<string, number>();
        const handler = async (_ctx: QueueOnly, task: { key: string }) => {
          runs.set(task.key, (runs.get(task.key) ?? 0) + 1);
          await sleep(2);
        };
        const handlers: TaskHandlers<QueueOnly> = { work: handler };
        for (let i = 0; i < 300; i += 1) await queue.enqueue("work", `w${i}`, null);
        const workers = [
          startWorker(contextOf(queue, handlers), queue, handlers, { concurrency: 4, pollMs: 20 }),
          startWorker(contextOf(otherQueue, handlers), otherQueue, handlers, { concurrency: 4, pollMs: 20 }),
        ];
        const started = Date.now();
        while (runs.size < 300 && Date.now() - started < 20_000) await sleep(20);
        await Promise.all(workers.map((w) => w.stop()));
        assert.equal(runs.size, 300);
        assert.deepEqual([...new Set(runs.values())], [1]);
        assert.equal((await queue.pending()).work, undefined);
      });
    }
  });
});
