/**
 * Synchronization: the CN harvests Member Nodes on their schedules and on CNRead.synchronize, through real
 * listening nodes. Faults: a Member Node going down mid-harvest, a CN restarted mid-harvest, a node that rejects
 * toDate (or start and count), bytes that do not match their system metadata.
 */
import assert from "node:assert/strict";
import { writeFile } from "node:fs/promises";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { D1Error, InvalidRequest } from "../../src/errors/exceptions.ts";
import { clientFor } from "../../src/federation/client.ts";
import { type HarvestSource, harvestNode } from "../../src/federation/harvest/harvest.ts";
import { harvestableNode } from "../../src/federation/harvest/registry.ts";
import { harvestTask } from "../../src/federation/harvest/tasks.ts";
import { type RunningNode, startNode } from "../../src/node/start.ts";
import { capabilities } from "../../src/services/mn/core.ts";
import { PermanentTaskError } from "../../src/tasks/worker.ts";
import { serializeNode } from "../../src/types/index.ts";
import type { Schedule } from "../../src/types/node.ts";
import { type Caller, call, create, enc, okXml, update } from "../helpers/clients/client.ts";
import { uniquePid } from "../helpers/data/sysmeta.ts";
import { startTestFederation, type TestFederation } from "../helpers/nodes/federation.ts";
import { testDialects } from "../helpers/nodes/node.ts";
import { TestClock } from "../helpers/time/clock.ts";
import { eventually } from "../helpers/time/eventually.ts";

const NEVER: Schedule = { sec: "0", min: "0", hour: "0", mday: "1", mon: "1", wday: "?", year: "2199" };
const EML = "eml://ecoinformatics.org/eml-2.1.1";
const emlBytes = (title: string) =>
  Buffer.from(
    `<?xml version="1.0"?><eml:eml xmlns:eml="eml://ecoinformatics.org/eml-2.1.1" packageId="p" system="s">` +
      `<dataset><title>${title}</title></dataset></eml:eml>`,
  );

for (const dialect of testDialects()) {
  describe(`synchronization (${dialect})`, () => {
    let fed: TestFederation;
    let admin: (i: number) => Promise<Caller>;
    const restarted: RunningNode[] = [];
    before(async () => {
      // MN1 tells the CN about each change; MN2 and MN3 are harvested on schedules the tests set.
      fed = await startTestFederation(dialect, {
        settings: (name) =>
          name === "mn1"
            ? { syncSchedule: NEVER }
            : name === "mn2"
              ? { syncSchedule: NEVER, notifyCn: false }
              : name === "mn3"
                ? { syncSchedule: NEVER, notifyCn: false }
                : {},
      });
      admin = async (i) => ({
        baseUrl: (fed.mns[i] as RunningNode).baseUrl,
        token: await fed.token(fed.adminSubject),
      });
    });
    after(async () => {
      for (const node of restarted) await node.close();
      await fed?.close();
    });

    const cnHas = (pid: string) => fed.cn.ctx.db.objects.get(pid);
    const mn3Node = async () => {
      const node = await harvestableNode(fed.cn.ctx, "urn:node:LOCALMN3");
      assert.ok(node, "MN3 is harvestable");
      return node;
    };

    it("create on an MN: the CN has it through CNRead.synchronize (how soon: npm run bench -- federation), in listObjects and resolve", async () => {
      const pid = uniquePid("nrt");
      const started = Date.now();
      await okXml(await create(await admin(0), pid, Buffer.from("x,y\n1,2\n")));
      const cn = clientFor((fed.mns[0] as RunningNode).ctx, fed.cn.baseUrl);
      const sysmeta = await eventually("CN getSystemMetadata", () => cn.getSystemMetadata(pid));
      assert.equal(sysmeta.authoritativeMemberNode, "urn:node:LOCALMN1");
      assert.deepEqual(
        sysmeta.replicas.map((r) => [r.replicaMemberNode, r.replicationStatus]),
        [["urn:node:LOCALMN1", "completed"]],
      );
      const listed = await cn.listObjects({ fromDate: new Date(started - 60_000) });
      assert.ok(listed.items.some((o) => o.identifier === pid));
      const caller = { baseUrl: fed.cn.baseUrl, token: await fed.token(fed.adminSubject) };
      const resolved = await call(caller, "GET", `/resolve/${enc(pid)}`, { redirect: "manual" });
      assert.equal(resolved.status, 303);
      assert.equal(
        resolved.headers.get("location"),
        `${(fed.mns[0] as RunningNode).baseUrl}/v2/object/${enc(pid)}`,
      );
      // DATA stays on the MN: the CN keeps its system metadata and checksum only.
      assert.equal((await cnHas(pid))?.contentKey, "");
    });

    it("an update reaches the CN: the old version is obsoleted there, the SID follows the head", async () => {
      const sid = uniquePid("sid");
      const v1 = uniquePid("v1");
      const v2 = uniquePid("v2");
      await okXml(await create(await admin(0), v1, emlBytes("first"), { formatId: EML, seriesId: sid }));
      await okXml(await update(await admin(0), v1, v2, emlBytes("second"), { formatId: EML, seriesId: sid }));
      const head = await eventually("v2 on the CN", async () => (await cnHas(v2)) ?? undefined);
      const old = await eventually("v1 obsoleted on the CN", async () => {
        const o = await cnHas(v1);
        return o?.sysmeta.obsoletedBy === v2 ? o : undefined;
      });
      assert.equal(old.sysmeta.seriesId, sid);
      assert.equal(await fed.cn.ctx.db.objects.headOfSeries(sid), v2);
      // METADATA is copied to the CN, byte for byte.
      assert.notEqual(head.contentKey, "");
      const caller = { baseUrl: fed.cn.baseUrl, token: await fed.token(fed.adminSubject) };
      const bytes = await call(caller, "GET", `/object/${enc(v2)}`);
      assert.equal(await bytes.text(), emlBytes("second").toString());
    });

    it("archive and access changes on the authoritative MN reach the CN; nothing is duplicated", async () => {
      const pid = uniquePid("arch");
      await okXml(await create(await admin(0), pid, Buffer.from("a\n")));
      await eventually("on the CN", async () => (await cnHas(pid)) ?? undefined);
      assert.equal((await call(await admin(0), "PUT", `/archive/${enc(pid)}`)).status, 200);
      const archived = await eventually("archived on the CN", async () => {
        const o = await cnHas(pid);
        return o?.sysmeta.archived ? o : undefined;
      });
      assert.equal(archived.sysmeta.authoritativeMemberNode, "urn:node:LOCALMN1");
      const rows = await fed.cn.ctx.db.kysely
        .selectFrom("objects")
        .select("pid")
        .where("pid", "=", pid)
        .execute();
      assert.equal(rows.length, 1);
    });

    it("a scheduled harvest finds new objects and records lastHarvested in listNodes", async () => {
      const pid = uniquePid("sched");
      await okXml(await create(await admin(1), pid, Buffer.from("scheduled\n")));
      // MN2 moves its harvest to a second from now ("sec" is a single number: once a minute, at that second).
      const mn2 = fed.mns[1] as RunningNode;
      const sec = String(new Date(Date.now() + 4_000).getUTCSeconds());
      const node = capabilities(mn2.ctx);
      node.synchronization = {
        schedule: { ...NEVER, sec, min: "*", hour: "*", mday: "*", mon: "*", year: "*" },
      };
      const body = new FormData();
      body.append("node", new File([serializeNode(node, "v2")], "node.xml", { type: "text/xml" }));
      const asMn2 = { baseUrl: fed.cn.baseUrl, token: await fed.token(mn2.ctx.config.nodeSubject) };
      assert.equal((await call(asMn2, "PUT", `/node/${enc(node.identifier)}`, { body })).status, 200);
      await eventually("harvested from MN2", async () => (await cnHas(pid)) ?? undefined, 10_000);
      // The harvest records lastHarvested once the page's objects are stored, so it may follow them shortly.
      await eventually("lastHarvested set in listNodes", async () => {
        const nodes = await clientFor((fed.mns[0] as RunningNode).ctx, fed.cn.baseUrl).listNodes();
        return nodes.find((n) => n.identifier === "urn:node:LOCALMN2")?.synchronization?.lastHarvested;
      });
    });

    it("an MN going down mid-harvest: the harvest fails, is retried, and nothing is lost or duplicated", async () => {
      const pids: string[] = [];
      for (let i = 0; i < 12; i++) {
        const pid = uniquePid(`down${i}`);
        pids.push(pid);
        await okXml(await create(await admin(2), pid, Buffer.from(`row ${i}\n`)));
      }
      const mn3 = fed.mns[2] as RunningNode;
      const real = clientFor(fed.cn.ctx, mn3.baseUrl);
      let pages = 0;
      const stopping: HarvestSource = {
        ...real,
        listObjects: async (w) => {
          if (++pages === 2) await mn3.close(); // the node goes away between pages
          return real.listObjects(w);
        },
        getSystemMetadata: (pid) => real.getSystemMetadata(pid),
        get: (pid, size) => real.get(pid, size),
        getChecksum: (pid, algorithm) => real.getChecksum(pid, algorithm),
        synchronizationFailed: (pid, d) => real.synchronizationFailed(pid, d),
      };
      await assert.rejects(
        harvestNode(fed.cn.ctx, await mn3Node(), { source: stopping, pageSize: 5, lagMs: 0 }),
        {
          exception: "ServiceFailure",
        },
      );
      const progress = await fed.cn.ctx.db.harvestProgress.load("urn:node:LOCALMN3");
      assert.ok(progress?.window, "the open window is kept");
      // The node comes back at the same address; the harvest resumes.
      const back = await startNode(mn3.ctx.config, { logLevel: false });
      restarted.push(back);
      const result = await harvestNode(fed.cn.ctx, await mn3Node(), { pageSize: 5, lagMs: 0 });
      assert.equal(result.outcomes.failed, 0);
      for (const pid of pids) assert.ok(await cnHas(pid), `${pid} is on the CN`);
      const again = await harvestNode(fed.cn.ctx, await mn3Node(), { pageSize: 5, lagMs: 0 });
      assert.equal(again.outcomes.created + again.outcomes.updated, 0);
    });

    it("a node rejecting toDate, then start and count, is harvested with fromDate alone", async () => {
      const mn3 = restarted[0] as RunningNode;
      const pids: string[] = [];
      for (let i = 0; i < 4; i++) {
        const pid = uniquePid(`fromdate${i}`);
        pids.push(pid);
        await okXml(
          await create(
            { baseUrl: mn3.baseUrl, token: await fed.token(fed.adminSubject) },
            pid,
            Buffer.from(`f${i}\n`),
          ),
        );
      }
      const real = clientFor(fed.cn.ctx, mn3.baseUrl);
      const asked: string[] = [];
      const picky: HarvestSource = {
        listObjects: async (w) => {
          asked.push(Object.keys(w).sort().join(","));
          if (w.toDate) throw new InvalidRequest("toDate is not supported here.");
          if (w.start !== undefined || w.count !== undefined) {
            throw new D1Error("NotImplemented", "start and count are not supported here.");
          }
          return real.listObjects(w);
        },
        getSystemMetadata: (pid) => real.getSystemMetadata(pid),
        get: (pid, size) => real.get(pid, size),
        getChecksum: (pid, algorithm) => real.getChecksum(pid, algorithm),
        synchronizationFailed: (pid, d) => real.synchronizationFailed(pid, d),
      };
      const result = await harvestNode(fed.cn.ctx, await mn3Node(), { source: picky, pageSize: 2, lagMs: 0 });
      assert.deepEqual(asked, ["count,fromDate,start,toDate", "count,fromDate,start", "fromDate"]);
      assert.equal(result.outcomes.created, 4);
      for (const pid of pids) assert.ok(await cnHas(pid));
      const store = fed.cn.ctx.db.harvestProgress;
      const saved = await store.load("urn:node:LOCALMN3");
      assert.equal(saved?.listParams, "fromDate");
      assert.ok(saved);
      await store.save("urn:node:LOCALMN3", { ...saved, listParams: "window" }); // for the tests that follow
    });

    it("bytes that do not match their system metadata: synchronizationFailed reaches the MN's log", async () => {
      const mn3 = restarted[0] as RunningNode;
      const pid = uniquePid("badsum");
      await okXml(
        await create(
          { baseUrl: mn3.baseUrl, token: await fed.token(fed.adminSubject) },
          pid,
          emlBytes("bad"),
          { formatId: EML },
        ),
      );
      // The MN's stored bytes rot: same size, other content, so they no longer match the checksum.
      const key = (await mn3.ctx.db.objects.get(pid))?.contentKey as string;
      const file = path.join(
        mn3.ctx.config.dataDir,
        "store",
        "objects",
        key.slice(0, 2),
        key.slice(2, 4),
        key,
      );
      await writeFile(file, emlBytes("BAD"));
      const result = await harvestNode(fed.cn.ctx, await mn3Node(), { lagMs: 0 });
      assert.equal(result.outcomes.failed, 1);
      assert.equal(await cnHas(pid), undefined);
      await mn3.ctx.db.events.flush();
      const logged = await mn3.ctx.db.kysely
        .selectFrom("events")
        .select(["event", "subject"])
        .where("pid", "=", pid)
        .where("event", "=", "synchronization_failed")
        .execute();
      assert.equal(logged.length, 1);
      assert.equal(logged[0]?.subject, fed.cn.ctx.config.nodeSubject);
      await fed.cn.ctx.db.events.flush();
      const own = await fed.cn.ctx.db.events.list({ idFilter: pid }, 0, 10);
      assert.ok(own.items.some((e) => e.event === "synchronization_failed"));
    });

    it("a node failing in the middle of a large page: what was written stays, the rest comes on the next run", async () => {
      const mn3 = restarted[0] as RunningNode;
      const caller = { baseUrl: mn3.baseUrl, token: await fed.token(fed.adminSubject) };
      const pids: string[] = [];
      for (let i = 0; i < 300; i++) {
        const pid = uniquePid(`chunk${i}`);
        pids.push(pid);
        await okXml(await create(caller, pid, Buffer.from(`c${i}\n`)));
      }
      const real = clientFor(fed.cn.ctx, mn3.baseUrl);
      let calls = 0;
      const failing: HarvestSource = {
        listObjects: (w) => real.listObjects(w),
        getSystemMetadata: async (pid) => {
          if (++calls === 280) throw new D1Error("ServiceFailure", "the node went away");
          return real.getSystemMetadata(pid);
        },
        get: (pid, size) => real.get(pid, size),
        getChecksum: (pid, algorithm) => real.getChecksum(pid, algorithm),
        synchronizationFailed: (pid, d) => real.synchronizationFailed(pid, d),
      };
      await assert.rejects(harvestNode(fed.cn.ctx, await mn3Node(), { source: failing, lagMs: 0 }), {
        exception: "ServiceFailure",
      });
      const written = (await Promise.all(pids.map(cnHas))).filter(Boolean).length;
      assert.ok(written >= 250 && written < 300, `the first chunk was written (${written})`);
      const result = await harvestNode(fed.cn.ctx, await mn3Node(), { lagMs: 0 });
      assert.equal(result.outcomes.created, 300 - written);
      assert.equal(result.outcomes.failed, 0);
      for (const pid of pids) assert.ok(await cnHas(pid), `${pid} is on the CN`);
    });

    it("a CN restarted mid-harvest resumes from the saved position", async () => {
      const mn3 = restarted[0] as RunningNode;
      const pids: string[] = [];
      for (let i = 0; i < 30; i++) {
        const pid = uniquePid(`resume${i}`);
        pids.push(pid);
        await okXml(
          await create(
            { baseUrl: mn3.baseUrl, token: await fed.token(fed.adminSubject) },
            pid,
            Buffer.from(`r${i}\n`),
          ),
        );
      }
      const real = clientFor(fed.cn.ctx, mn3.baseUrl);
      let pages = 0;
      const crashing: HarvestSource = {
        listObjects: async (w) => {
          if (++pages === 4) throw new Error("the CN process died");
          return real.listObjects(w);
        },
        getSystemMetadata: (pid) => real.getSystemMetadata(pid),
        get: (pid, size) => real.get(pid, size),
        getChecksum: (pid, algorithm) => real.getChecksum(pid, algorithm),
        synchronizationFailed: (pid, d) => real.synchronizationFailed(pid, d),
      };
      await assert.rejects(
        harvestNode(fed.cn.ctx, await mn3Node(), { source: crashing, pageSize: 5, lagMs: 0 }),
      );
      const done = (await Promise.all(pids.map(cnHas))).filter(Boolean).length;
      assert.ok(done >= 10 && done < 30, `part of the window was harvested (${done})`);

      // A new CN process on the same database and data folder.
      await fed.cn.close();
      const cn = await startNode(fed.cn.ctx.config, { logLevel: false, worker: false });
      restarted.push(cn);
      const saved = await cn.ctx.db.harvestProgress.load("urn:node:LOCALMN3");
      assert.ok(saved?.window?.cursorFrom, "the position was saved");
      let fetched = 0;
      const counting: HarvestSource = {
        listObjects: (w) => real.listObjects(w),
        getSystemMetadata: (pid) => {
          fetched++;
          return real.getSystemMetadata(pid);
        },
        get: (pid, size) => real.get(pid, size),
        getChecksum: (pid, algorithm) => real.getChecksum(pid, algorithm),
        synchronizationFailed: (pid, d) => real.synchronizationFailed(pid, d),
      };
      const node = await harvestableNode(cn.ctx, "urn:node:LOCALMN3");
      assert.ok(node);
      const result = await harvestNode(cn.ctx, node, { source: counting, pageSize: 5, lagMs: 0 });
      for (const pid of pids) assert.ok(await cn.ctx.db.objects.get(pid), `${pid} is on the CN`);
      assert.equal(result.outcomes.created, 30 - done);
      assert.equal(fetched, 30 - done, "only what was not yet harvested is fetched again");
    });
  });
}

for (const dialect of testDialects()) {
  describe(`harvest tasks (${dialect})`, () => {
    let fed: TestFederation;
    let back: RunningNode | undefined;
    const MN1 = "urn:node:LOCALMN1";
    before(async () => {
      fed = await startTestFederation(dialect, {
        mnCount: 1,
        worker: false,
        settings: (name) => (name === "mn1" ? { syncSchedule: NEVER, notifyCn: false } : {}),
      });
    });
    after(async () => {
      await back?.close();
      await fed?.close();
    });

    const waitingHarvest = () =>
      fed.cn.ctx.db.kysely
        .selectFrom("tasks")
        .select(["run_at", "state"])
        .where("kind", "=", "harvest")
        .where("key", "=", MN1)
        .where("state", "=", "ready")
        .executeTakeFirst();
    const task = (attempts: number) => ({ id: 0, kind: "harvest", key: MN1, payload: null, attempts });

    it("approval schedules the first harvest at the node's next scheduled time", async () => {
      const waiting = await waitingHarvest();
      assert.equal(Number(waiting?.run_at), Date.parse("2199-01-01T00:00:00Z"));
    });

    it("a node that is down fails the run (retried); the last allowed failure waits for the schedule", async () => {
      const mn = fed.mns[0] as RunningNode;
      const caller = { baseUrl: mn.baseUrl, token: await fed.token(fed.adminSubject) };
      const pids = [uniquePid("task"), uniquePid("task")];
      for (const pid of pids) await okXml(await create(caller, pid, Buffer.from(`${pid}\n`)));
      // A window ends 2 s before its harvest starts (writes in flight are left to the next one): the CN's
      // clock moves past that instead of the test waiting.
      const clock = new TestClock();
      clock.advance(2_100);
      const cn = { ...fed.cn.ctx, clock };
      await fed.cn.ctx.db.kysely.deleteFrom("tasks").where("kind", "=", "harvest").execute();
      await mn.close();
      await assert.rejects(harvestTask(cn, task(1)), { exception: "ServiceFailure" });
      assert.equal(await waitingHarvest(), undefined, "a retry is the queue's, not a new run");
      await assert.rejects(harvestTask(cn, task(5)), PermanentTaskError);
      assert.ok(await waitingHarvest(), "the next scheduled harvest waits");

      back = await startNode(mn.ctx.config, { logLevel: false, worker: false });
      await harvestTask(cn, task(1));
      for (const pid of pids) assert.ok(await fed.cn.ctx.db.objects.get(pid), `${pid} is on the CN`);
      const node = await harvestableNode(fed.cn.ctx, MN1);
      assert.ok(node?.synchronization?.lastHarvested);
    });
  });
}
