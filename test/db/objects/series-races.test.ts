/**
 * A SID belongs to one chain, however many writers race to introduce it: 20 rounds of 16 concurrent calls through
 * the service layer, on SQLite and PostgreSQL (a pool of connections: the transactions overlap). Each round has
 * exactly one winner; the losers get the exception the API names and leave nothing behind (no row, no bytes).
 */
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { Readable } from "node:stream";
import { before, describe, it } from "node:test";
import type { Session } from "../../../src/auth/session.ts";
import type { CallInfo, NodeContext } from "../../../src/context/node-context.ts";
import type { Database } from "../../../src/db/types.ts";
import { D1Error } from "../../../src/errors/exceptions.ts";
import * as cnCore from "../../../src/services/cn/core.ts";
import * as mnStorage from "../../../src/services/mn/storage.ts";
import { updateSystemMetadata } from "../../../src/services/mn/sysmeta-update.ts";
import { findByPidOrSid } from "../../../src/services/shared/resolve.ts";
import type { StagedObject } from "../../../src/store/types.ts";
import type { SystemMetadata } from "../../../src/types/sysmeta.ts";
import { storedObject, uniquePid } from "../../helpers/data/sysmeta.ts";
import { forEachDialect } from "../../helpers/db/databases.ts";
import { contextOver } from "../../helpers/nodes/federation-context.ts";

const ROUNDS = 20;
const RACERS = 16;
const ADMIN = "CN=series-racer,DC=d1node,DC=org";
const session: Session = {
  subject: ADMIN,
  subjects: new Set([ADMIN]),
  authenticated: true,
  isAdmin: true,
  isCn: false,
};
const call: CallInfo = { session, ipAddress: "127.0.0.1", userAgent: "series-races" };

type Outcome = { ok: true } | { ok: false; exception: string; description: string };

async function outcome(work: Promise<unknown>): Promise<Outcome> {
  try {
    await work;
    return { ok: true };
  } catch (error) {
    if (!(error instanceof D1Error)) throw error;
    return { ok: false, exception: error.exception, description: error.description };
  }
}

/** Exactly one winner; every loser got `exception` (or the one `expected(i)` names). Returns the winner's index. */
function oneWinner(outcomes: Outcome[], expected: (i: number) => string): number {
  const winners = outcomes.flatMap((o, i) => (o.ok ? [i] : []));
  assert.equal(winners.length, 1, `winners: ${winners.join(", ")}`);
  for (const [i, o] of outcomes.entries()) {
    if (!o.ok) assert.equal(o.exception, expected(i), `racer ${i}: ${o.description}`);
  }
  return winners[0] as number;
}

forEachDialect((_name, open) => {
  describe("one chain per series identifier, under racing writers", () => {
    let db: Database;
    let ctx: NodeContext;

    before(async () => {
      db = await open();
    });
    /** A context per test: its store's folder lives as long as the test. */
    const race = (name: string, body: () => Promise<void>) =>
      it(name, async () => {
        ctx = await contextOver(db, { submitters: [ADMIN] });
        await body();
      });

    const bytesOf = (pid: string) => Buffer.from(`bytes of ${pid}\n`);
    const sysmetaFor = (pid: string, overrides: Partial<SystemMetadata> = {}): SystemMetadata => {
      const bytes = bytesOf(pid);
      const { sysmeta } = storedObject(pid, {
        size: bytes.length,
        checksum: { algorithm: "SHA-256", value: createHash("sha256").update(bytes).digest("hex") },
        ...overrides,
      });
      return { ...sysmeta, obsoletedBy: undefined };
    };
    const stage = (pid: string) => ctx.store.stage(Readable.from([bytesOf(pid)]), { algorithm: "SHA-256" });
    const create = async (pid: string, sid?: string, staged?: StagedObject) =>
      mnStorage.create(ctx, call, pid, sysmetaFor(pid, { seriesId: sid }), staged ?? (await stage(pid)));
    const update = async (old: string, pid: string, sid?: string, staged?: StagedObject) =>
      mnStorage.update(
        ctx,
        call,
        old,
        pid,
        sysmetaFor(pid, { seriesId: sid, obsoletes: old }),
        staged ?? (await stage(pid)),
      );
    /** Every racer's bytes staged first, so that the calls start together. */
    const stageAll = (pids: string[]) => Promise.all(pids.map(stage));
    /** Objects a round starts from, written straight to the database (no bytes needed). */
    const existing = (pids: string[]) => db.objects.insertMany(pids.map((pid) => storedObject(pid)));
    const keyOf = (pid: string) => createHash("sha256").update(bytesOf(pid)).digest("hex");

    /** The series holds `members` alone (in that order), headed by the last; losers have no row and no bytes. */
    async function assertSeries(sid: string, members: string[], losers: string[]): Promise<void> {
      assert.deepEqual(await db.objects.pidsOfSeries(sid), members);
      assert.equal(await db.objects.headOfSeries(sid), members.at(-1));
      // getSystemMetadata(SID) answers with the head's system metadata.
      const head = members.at(-1);
      if (head !== undefined) assert.equal((await findByPidOrSid(ctx, sid)).sysmeta.identifier, head);
      for (const pid of losers) {
        assert.equal(await db.objects.get(pid), undefined, `${pid} has no row`);
        assert.equal(await db.objects.isIdentifierInUse(pid), false, `${pid} is not in use`);
      }
    }
    const assertNoBytes = async (pids: string[]) => {
      for (const pid of pids) assert.equal(await ctx.store.has(keyOf(pid)), false, `no bytes of ${pid}`);
    };

    race(
      "(a) creates with distinct pids and one new SID: one wins, the others InvalidSystemMetadata",
      async () => {
        for (let round = 0; round < ROUNDS; round++) {
          const sid = uniquePid("sid-a");
          const pids = Array.from({ length: RACERS }, (_, i) => `${sid}-pid-${i}`);
          const staged = await stageAll(pids);
          const outcomes = await Promise.all(pids.map((pid, i) => outcome(create(pid, sid, staged[i]))));
          const winner = oneWinner(outcomes, () => "InvalidSystemMetadata");
          const losers = pids.filter((_, i) => i !== winner);
          await assertSeries(sid, [pids[winner] as string], losers);
          await assertNoBytes(losers);
          assert.equal((await db.objects.get(sid)) === undefined, true);
        }
      },
    );

    race(
      "(b) updates of different chains into one new SID: one wins, the other chains are untouched",
      async () => {
        for (let round = 0; round < ROUNDS; round++) {
          const sid = uniquePid("sid-b");
          const olds = Array.from({ length: RACERS }, (_, i) => `${sid}-v1-${i}`);
          await existing(olds);
          const news = olds.map((pid) => pid.replace("-v1-", "-v2-"));
          const staged = await stageAll(news);
          const outcomes = await Promise.all(
            news.map((pid, i) => outcome(update(olds[i] as string, pid, sid, staged[i]))),
          );
          const winner = oneWinner(outcomes, () => "InvalidSystemMetadata");
          const losers = news.filter((_, i) => i !== winner);
          await assertSeries(sid, [news[winner] as string], losers);
          await assertNoBytes(losers);
          for (const [i, old] of olds.entries()) {
            const obsoletedBy = (await db.objects.get(old))?.sysmeta.obsoletedBy;
            assert.equal(obsoletedBy, i === winner ? news[winner] : undefined);
          }
        }
      },
    );

    race("(c) a new pid equal to a SID introduced at the same moment: one of them, never both", async () => {
      for (let round = 0; round < ROUNDS; round++) {
        const contested = uniquePid("id-c");
        // Half the racers create the pid `contested`, the others a pid of their own with SID `contested`; which
        // half starts first alternates between rounds.
        const racers = Array.from({ length: RACERS }, (_, i) => (i + round) % 2 === 0);
        const sidPid = (i: number) => `${contested}-with-sid-${i}`;
        const staged = await stageAll(racers.map((asPid, i) => (asPid ? contested : sidPid(i))));
        const outcomes = await Promise.all(
          racers.map((asPid, i) =>
            outcome(
              asPid ? create(contested, undefined, staged[i]) : create(sidPid(i), contested, staged[i]),
            ),
          ),
        );
        const winner = oneWinner(outcomes, (i) =>
          racers[i] ? "IdentifierNotUnique" : "InvalidSystemMetadata",
        );
        const sidLosers = racers.flatMap((asPid, i) => (asPid || i === winner ? [] : [sidPid(i)]));
        if (racers[winner]) {
          assert.equal((await db.objects.get(contested))?.sysmeta.seriesId, undefined);
          assert.deepEqual(await db.objects.pidsOfSeries(contested), []);
          assert.equal(await db.objects.headOfSeries(contested), undefined);
          await assertSeries(contested, [], sidLosers);
        } else {
          assert.equal(await db.objects.get(contested), undefined, "no object has the SID as its PID");
          await assertSeries(contested, [sidPid(winner)], sidLosers);
          await assertNoBytes([contested]);
        }
        await assertNoBytes(sidLosers);
      }
    });

    race("(d) updateSystemMetadata adding the same SID to different objects: one wins", async () => {
      for (let round = 0; round < ROUNDS; round++) {
        const sid = uniquePid("sid-d");
        const pids = Array.from({ length: RACERS }, (_, i) => `${sid}-obj-${i}`);
        await existing(pids);
        const current = await db.objects.getMany(pids);
        const outcomes = await Promise.all(
          pids.map((pid) => {
            const sysmeta = current.get(pid)?.sysmeta as SystemMetadata;
            return outcome(updateSystemMetadata(ctx, call, pid, { ...sysmeta, seriesId: sid }));
          }),
        );
        const winner = oneWinner(outcomes, () => "InvalidSystemMetadata");
        await assertSeries(sid, [pids[winner] as string], []);
        for (const [i, pid] of pids.entries()) {
          const stored = (await db.objects.get(pid))?.sysmeta;
          assert.equal(stored?.seriesId, i === winner ? sid : undefined);
          assert.equal(stored?.serialVersion, i === winner ? 2 : 1);
        }
      }
    });

    race(
      "(e) CN registerSystemMetadata with one new SID: one wins, the others InvalidSystemMetadata",
      async () => {
        for (let round = 0; round < ROUNDS; round++) {
          const sid = uniquePid("sid-e");
          const pids = Array.from({ length: RACERS }, (_, i) => `${sid}-reg-${i}`);
          const outcomes = await Promise.all(
            pids.map((pid) =>
              outcome(cnCore.registerSystemMetadata(ctx, call, pid, sysmetaFor(pid, { seriesId: sid }))),
            ),
          );
          const winner = oneWinner(outcomes, () => "InvalidSystemMetadata");
          await assertSeries(
            sid,
            [pids[winner] as string],
            pids.filter((_, i) => i !== winner),
          );
        }
      },
    );

    race("CN updateSystemMetadata adding the same SID to different objects: one wins", async () => {
      for (let round = 0; round < ROUNDS; round++) {
        const sid = uniquePid("sid-g");
        const pids = Array.from({ length: RACERS }, (_, i) => `${sid}-cn-${i}`);
        await existing(pids);
        const current = await db.objects.getMany(pids);
        const outcomes = await Promise.all(
          pids.map((pid) => {
            const sysmeta = current.get(pid)?.sysmeta as SystemMetadata;
            return outcome(cnCore.updateSystemMetadata(ctx, call, pid, { ...sysmeta, seriesId: sid }));
          }),
        );
        const winner = oneWinner(outcomes, () => "InvalidSystemMetadata");
        await assertSeries(sid, [pids[winner] as string], []);
        for (const [i, pid] of pids.entries()) {
          assert.equal((await db.objects.get(pid))?.sysmeta.seriesId, i === winner ? sid : undefined);
        }
      }
    });

    race("continuing a series: concurrent updates of its head, one wins and becomes the head", async () => {
      for (let round = 0; round < ROUNDS; round++) {
        const sid = uniquePid("sid-f");
        const first = `${sid}-v1`;
        await create(first, sid);
        const second = `${sid}-v2`;
        await update(first, second, sid);
        const news = Array.from({ length: RACERS }, (_, i) => `${sid}-v3-${i}`);
        const staged = await stageAll(news);
        const outcomes = await Promise.all(
          news.map((pid, i) => outcome(update(second, pid, sid, staged[i]))),
        );
        const winner = oneWinner(outcomes, () => "InvalidSystemMetadata");
        const losers = news.filter((_, i) => i !== winner);
        for (const o of outcomes) if (!o.ok) assert.match(o.description, /concurrent update/);
        await assertSeries(sid, [first, second, news[winner] as string], losers);
        await assertNoBytes(losers);
      }
    });
  });
});
