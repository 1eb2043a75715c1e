/**
 * Replication in a local federation (CN + four MNs, listening): the CN plans replicas from the object's
 * replication policy and the nodes' willingness, the targets pull the bytes from the source with getReplica
 * (private objects too, through CNReplication.isNodeAuthorized) and report completed; resolve lists every
 * holder; a target that is down is replaced by another; a corrupted replica is found by the audit, invalidated
 * and copied anew. Tasks are run by hand (runDueTasks), so every step is deterministic.
 */
import assert from "node:assert/strict";
import { createHash, randomBytes } from "node:crypto";
import { after, before, describe, it } from "node:test";
import { clientFor } from "../../src/federation/client.ts";
import { auditReplicas } from "../../src/federation/replication/audit.ts";
import { planReplication } from "../../src/federation/replication/plan.ts";
import { scanForReplication } from "../../src/federation/replication/scan.ts";
import { type RunningNode, startNode } from "../../src/node/start.ts";
import { scheduleReplication } from "../../src/services/cn/replica-outcomes.ts";
import { changeReplicaList } from "../../src/services/cn/replication.ts";
import { PULL_REPLICA } from "../../src/tasks/kinds.ts";
import { runDueTasks } from "../../src/tasks/worker.ts";
import type { Replica } from "../../src/types/sysmeta.ts";
import { call, checkedError, create, enc, okXml, update } from "../helpers/clients/client.ts";
import { uniquePid } from "../helpers/data/sysmeta.ts";
import { makeDueNow } from "../helpers/db/task-queue.ts";
import { startTestFederation, type TestFederation } from "../helpers/nodes/federation.ts";
import { testDialects } from "../helpers/nodes/node.ts";
import {
  corruptStoredBytes,
  removeStoredBytes,
  settle,
  synchronizeToCn,
} from "../helpers/nodes/replication.ts";
import { pollUntil } from "../helpers/time/eventually.ts";

const id = (n: number) => `urn:node:LOCALMN${n}`;

function policy(o: { number: number; preferred?: number[]; blocked?: number[] }): string {
  const nodes = (tag: string, list: number[] = []) => list.map((n) => `<${tag}>${id(n)}</${tag}>`).join("");
  return (
    `<replicationPolicy replicationAllowed="true" numberReplicas="${o.number}">` +
    `${nodes("preferredMemberNode", o.preferred)}${nodes("blockedMemberNode", o.blocked)}</replicationPolicy>`
  );
}

async function bytesOf(stream: NodeJS.ReadableStream): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(Buffer.from(chunk as Buffer));
  return Buffer.concat(chunks);
}

for (const dialect of testDialects()) {
  describe(`replication in a local federation (${dialect})`, () => {
    let fed: TestFederation;
    let up: RunningNode[];
    let mn: (n: number) => RunningNode;

    before(async () => {
      fed = await startTestFederation(dialect, {
        mnCount: 4,
        worker: false,
        settings: (name) =>
          name === "cn"
            ? // No pings: the suite stops nodes and checks what the planner does with them (pings would skip them).
              { replicationScanInterval: 0, replicaAuditInterval: 0, replicaAuditAge: 0, nodePingInterval: 0 }
            : { replicate: true },
      });
      up = [fed.cn, ...fed.mns];
      mn = (n) => fed.mns[n - 1] as RunningNode;
    });
    after(() => fed?.close());

    /** Creates `bytes` on MN1 with the policy, makes it known to the CN and runs the replication through. */
    async function replicated(tag: string, bytes: Buffer, replicationPolicy: string, readers = ["public"]) {
      const pid = uniquePid(tag);
      const admin = { baseUrl: mn(1).baseUrl, token: await fed.token(fed.adminSubject) };
      await okXml(await create(admin, pid, bytes, { readers, extra: replicationPolicy }));
      await synchronizeToCn(fed, mn(1), pid);
      await scheduleReplication(fed.cn.ctx, pid);
      await settle(up);
      return pid;
    }

    async function replicasOnCn(pid: string): Promise<Record<string, string>> {
      const object = await fed.cn.ctx.db.objects.get(pid);
      assert.ok(object);
      return Object.fromEntries(
        object.sysmeta.replicas.map((r: Replica) => [
          r.replicaMemberNode.replace("urn:node:LOCAL", ""),
          r.replicationStatus,
        ]),
      );
    }

    it("numberReplicas=2: MN2 and MN3 complete their replicas; resolve lists all three; the bytes are the same", async () => {
      const bytes = Buffer.from("site,value\nA,1\nB,2\n");
      const pid = await replicated("two", bytes, policy({ number: 2 }));
      assert.deepEqual(await replicasOnCn(pid), { MN2: "completed", MN3: "completed" });

      const cnCaller = { baseUrl: fed.cn.baseUrl, token: await fed.token(fed.adminSubject) };
      const resolved = await okXml(
        await call(cnCaller, "GET", `/resolve/${enc(pid)}`, { redirect: "manual" }).then(async (r) => {
          assert.equal(r.status, 303);
          return new Response(await r.text(), { status: 200 });
        }),
      );
      const listed = [...resolved.matchAll(/<nodeIdentifier>([^<]+)<\/nodeIdentifier>/g)].map((m) => m[1]);
      assert.deepEqual(listed, [id(1), id(2), id(3)]);
      for (const n of [2, 3]) {
        const holder = mn(n);
        const object = await holder.ctx.db.objects.get(pid);
        assert.equal(object?.isReplica, true);
        const client = clientFor(fed.cn.ctx, holder.baseUrl);
        assert.deepEqual(await bytesOf(await client.get(pid, bytes.length)), bytes);
        const sysmeta = await client.getSystemMetadata(pid);
        assert.equal(sysmeta.authoritativeMemberNode, id(1));
        // listObjects: replicas are listed, except with replicaStatus=false.
        const caller = { baseUrl: holder.baseUrl, token: await fed.token(fed.adminSubject) };
        assert.match(
          await okXml(await call(caller, "GET", `/object?identifier=${enc(pid)}`)),
          new RegExp(pid),
        );
        assert.doesNotMatch(
          await okXml(await call(caller, "GET", `/object?identifier=${enc(pid)}&replicaStatus=false`)),
          new RegExp(pid),
        );
      }
      assert.equal(await mn(4).ctx.db.objects.get(pid), undefined);
      // The source logged each pull as a replicate event.
      await mn(1).ctx.db.events.flush();
      const log = await clientFor(fed.cn.ctx, mn(1).baseUrl).getLogRecords({
        fromDate: new Date(Date.now() - 60_000),
      });
      const pulls = log.items.filter((e) => e.identifier === pid && e.event === "replicate");
      assert.equal(pulls.length, 2);
      // Nothing more to do: planning again changes nothing.
      const again = await planReplication(fed.cn.ctx, pid);
      assert.deepEqual(again, { stale: [], targets: [] });
    });

    it("a blocked node never gets a replica, even when the object stays short of its numberReplicas", async () => {
      const pid = await replicated("blocked", Buffer.from("blocked\n"), policy({ number: 3, blocked: [3] }));
      assert.deepEqual(await replicasOnCn(pid), { MN2: "completed", MN4: "completed" });
      assert.equal(await mn(3).ctx.db.objects.get(pid), undefined);
    });

    it("preferred nodes are used first", async () => {
      const pid = await replicated(
        "preferred",
        Buffer.from("preferred\n"),
        policy({ number: 1, preferred: [4] }),
      );
      assert.deepEqual(await replicasOnCn(pid), { MN4: "completed" });
    });

    it("private objects replicate: the source asks the CN (isNodeAuthorized) before serving the target", async () => {
      const bytes = Buffer.from("private,data\n");
      const pid = await replicated("private", bytes, policy({ number: 1, preferred: [2] }), ["CN=owner"]);
      assert.deepEqual(await replicasOnCn(pid), { MN2: "completed" });
      assert.deepEqual(
        await bytesOf(await clientFor(fed.cn.ctx, mn(2).baseUrl).get(pid, bytes.length)),
        bytes,
      );
      // Now that it is completed, no other node is authorized to pull it.
      await assert.rejects(clientFor(mn(3).ctx, mn(1).baseUrl).getReplica(pid, bytes.length), {
        exception: "NotAuthorized",
      });
    });

    it("a request left pending past the timeout fails and goes to another node", async () => {
      const pid = uniquePid("stale");
      const admin = { baseUrl: mn(1).baseUrl, token: await fed.token(fed.adminSubject) };
      await okXml(
        await create(admin, pid, Buffer.from("stale\n"), { extra: policy({ number: 1, preferred: [2] }) }),
      );
      await synchronizeToCn(fed, mn(1), pid);
      const longAgo = new Date(Date.now() - 2 * 3600_000);
      await changeReplicaList(fed.cn.ctx, pid, (current) => [
        ...current.replicas,
        { replicaMemberNode: id(2), replicationStatus: "requested", replicaVerified: longAgo },
      ]);
      const plan = await planReplication(fed.cn.ctx, pid);
      assert.deepEqual(plan.stale, [id(2)]);
      assert.deepEqual(
        plan.targets.map((t) => t.nodeId),
        [id(3)],
      );
      await settle(up);
      assert.deepEqual(await replicasOnCn(pid), { MN2: "failed", MN3: "completed" });
      const record = (await fed.cn.ctx.db.replicaNodes.all()).get(id(2));
      assert.match(record?.lastFailure ?? "", /not completed within 3600 s/);
    });

    it("a corrupted replica is found by the audit, invalidated, and copied to another node", async () => {
      const bytes = Buffer.from("audited bytes\n");
      const pid = await replicated("audit", bytes, policy({ number: 1, preferred: [2] }));
      assert.deepEqual(await replicasOnCn(pid), { MN2: "completed" });
      const first = await auditReplicas(fed.cn.ctx);
      assert.equal(first.invalidated, 0);
      assert.ok(first.checked >= 1);

      await corruptStoredBytes(mn(2), pid);
      const report = await auditReplicas(fed.cn.ctx);
      assert.equal(report.invalidated, 1);
      // The node's metrics count each check (d1node_audit_results_total{kind="replica"}).
      assert.ok((fed.cn.ctx.outcomes.audits.get("replica")?.get("invalid") ?? 0) >= 1);
      assert.equal((await replicasOnCn(pid)).MN2, "invalidated");
      await settle(up);
      const after = await replicasOnCn(pid);
      assert.equal(after.MN2, "invalidated");
      assert.equal(Object.values(after).filter((s) => s === "completed").length, 1);
      const holder = Object.keys(after).find((k) => after[k] === "completed") as string;
      const copy = await clientFor(fed.cn.ctx, mn(Number(holder.slice(2))).baseUrl).get(pid, bytes.length);
      assert.deepEqual(await bytesOf(copy), bytes);
      // resolve no longer lists the invalidated copy.
      const cnCaller = { baseUrl: fed.cn.baseUrl, token: await fed.token(fed.adminSubject) };
      const resolved = await call(cnCaller, "GET", `/resolve/${enc(pid)}`, { redirect: "manual" });
      assert.doesNotMatch(await resolved.text(), new RegExp(id(2)));
    });

    it("a replica whose bytes are gone from its holder's store is invalidated and copied anew", async () => {
      const pid = await replicated("gone", Buffer.from("gone\n"), policy({ number: 1, preferred: [3] }));
      assert.deepEqual(await replicasOnCn(pid), { MN3: "completed" });
      await removeStoredBytes(mn(3), pid);
      const report = await auditReplicas(fed.cn.ctx);
      assert.equal(report.invalidated, 1);
      await settle(up);
      const after = await replicasOnCn(pid);
      assert.equal(after.MN3, "invalidated");
      assert.equal(Object.values(after).filter((s) => s === "completed").length, 1);
      const record = (await fed.cn.ctx.db.replicaNodes.all()).get(id(3));
      assert.match(record?.lastFailure ?? "", /no longer holds/);
    });

    it("the periodic scan plans objects short of replicas", async () => {
      const pid = uniquePid("scan");
      const admin = { baseUrl: mn(1).baseUrl, token: await fed.token(fed.adminSubject) };
      await okXml(
        await create(admin, pid, Buffer.from("scan\n"), { extra: policy({ number: 1, preferred: [4] }) }),
      );
      await synchronizeToCn(fed, mn(1), pid);
      assert.ok((await scanForReplication(fed.cn.ctx)) >= 1);
      await settle(up);
      assert.deepEqual(await replicasOnCn(pid), { MN4: "completed" });
    });

    it("a large object is streamed to its replica; a replica cannot be updated where it is held", async () => {
      const bytes = randomBytes(6 * 1024 * 1024 + 7);
      const pid = await replicated("large", bytes, policy({ number: 1, preferred: [4] }));
      assert.deepEqual(await replicasOnCn(pid), { MN4: "completed" });
      const copy = await bytesOf(await clientFor(fed.cn.ctx, mn(4).baseUrl).get(pid, bytes.length));
      assert.equal(
        createHash("sha256").update(copy).digest("hex"),
        createHash("sha256").update(bytes).digest("hex"),
      );
      const onHolder = { baseUrl: mn(4).baseUrl, token: await fed.token(fed.adminSubject) };
      const refused = await checkedError(
        await update(onHolder, pid, uniquePid("large-v2"), Buffer.from("v2")),
      );
      assert.deepEqual([refused.name, refused.detailCode], ["InvalidRequest", "1202"]);
      assert.match(refused.body, /authoritative Member Node urn:node:LOCALMN1/);
    });

    it("bytes that do not match the CN's checksum are reported failed, with the reason", async () => {
      const pid = uniquePid("mismatch");
      const admin = { baseUrl: mn(1).baseUrl, token: await fed.token(fed.adminSubject) };
      await okXml(
        await create(admin, pid, Buffer.from("mismatch\n"), { extra: policy({ number: 1, preferred: [2] }) }),
      );
      await synchronizeToCn(fed, mn(1), pid, (s) => ({
        ...s,
        checksum: { algorithm: "SHA-1", value: "0".repeat(40) },
      }));
      await scheduleReplication(fed.cn.ctx, pid);
      await settle(up);
      const replicas = await replicasOnCn(pid);
      assert.equal(replicas.MN2, "failed");
      assert.ok(Object.values(replicas).every((s) => s === "failed"));
      for (const n of [2, 3, 4]) assert.equal(await mn(n).ctx.db.objects.get(pid), undefined);
      const record = (await fed.cn.ctx.db.replicaNodes.all()).get(id(2));
      assert.match(record?.lastFailure ?? "", /checksum/);
    });

    it("a completed report the CN no longer expects: the node removes its copy again", async () => {
      const pid = uniquePid("late");
      const admin = { baseUrl: mn(1).baseUrl, token: await fed.token(fed.adminSubject) };
      await okXml(
        await create(admin, pid, Buffer.from("late\n"), { extra: policy({ number: 1, preferred: [2] }) }),
      );
      await synchronizeToCn(fed, mn(1), pid);
      await planReplication(fed.cn.ctx, pid);
      await runDueTasks(fed.cn.ctx); // MN2 is asked: requested
      assert.deepEqual(await replicasOnCn(pid), { MN2: "requested" });
      await changeReplicaList(fed.cn.ctx, pid, (current) =>
        current.replicas.map((r) => ({ ...r, replicationStatus: "failed" as const })),
      );
      await runDueTasks(mn(2).ctx); // pulls, reports completed, is refused
      assert.equal(await mn(2).ctx.db.objects.get(pid), undefined);
      assert.deepEqual(await mn(2).ctx.tasks.dead(), []);
      assert.deepEqual(await replicasOnCn(pid), { MN2: "failed" });
    });

    it("a target that is down is failed and replaced by another node, without duplicates", async () => {
      const down = mn(3);
      await down.close();
      up = up.filter((node) => node !== down);
      const pid = await replicated("down", Buffer.from("down\n"), policy({ number: 2, preferred: [3, 2] }));
      const replicas = await replicasOnCn(pid);
      assert.deepEqual(replicas, { MN2: "completed", MN3: "failed", MN4: "completed" });
      const record = (await fed.cn.ctx.db.replicaNodes.all()).get(id(3));
      assert.ok((record?.consecutiveFailures ?? 0) >= 1);
      assert.match(record?.lastFailure ?? "", /could not be reached/);
      // Planning again finds nothing to do (MN3's failure is recent; the others hold it).
      assert.deepEqual((await planReplication(fed.cn.ctx, pid)).targets, []);
    });
  });
}

for (const dialect of testDialects()) {
  describe(`replication with every node's worker running (${dialect})`, () => {
    let fed: TestFederation;
    before(async () => {
      // Objects reach the CN through the MNs' notices (CN.synchronize), as in production.
      fed = await startTestFederation(dialect, { mnCount: 3 });
    });
    after(() => fed?.close());

    it("replicas on MN2 and MN3 complete on their own, both reports kept", async () => {
      const mn1 = fed.mns[0] as RunningNode;
      const pids = [uniquePid("live"), uniquePid("live")];
      const admin = { baseUrl: mn1.baseUrl, token: await fed.token(fed.adminSubject) };
      for (const pid of pids) {
        // MN1 asks the CN to synchronize; the CN then plans the replicas itself.
        await okXml(await create(admin, pid, Buffer.from(`live ${pid}\n`), { extra: policy({ number: 2 }) }));
      }
      const statuses = async (pid: string) =>
        ((await fed.cn.ctx.db.objects.get(pid))?.sysmeta.replicas ?? [])
          .map((r) => `${r.replicaMemberNode}=${r.replicationStatus}`)
          .sort();
      // The harvest records the authoritative MN's own copy as a completed replica, as DataONE's CN does.
      const done = [`${id(1)}=completed`, `${id(2)}=completed`, `${id(3)}=completed`];
      for (const pid of pids) {
        await pollUntil(
          () => statuses(pid),
          (now) => JSON.stringify(now) === JSON.stringify(done),
          30_000,
        );
      }
      assert.deepEqual(await fed.cn.ctx.tasks.dead(), []);
      for (const mn of fed.mns) assert.deepEqual(await mn.ctx.tasks.dead(), []);
    });
  });
}

for (const dialect of testDialects()) {
  describe(`replication when nodes go down and come back (${dialect})`, () => {
    let fed: TestFederation;
    const restarted: RunningNode[] = [];
    before(async () => {
      fed = await startTestFederation(dialect, {
        mnCount: 2,
        worker: false,
        settings: (name) =>
          name === "cn"
            ? // No pings: this suite drives the planner itself while a node is down (pings would mark it down).
              {
                replicationRequestTimeout: 1,
                replicationScanInterval: 0,
                replicaAuditInterval: 0,
                nodePingInterval: 0,
              }
            : { replicate: true },
      });
    });
    after(async () => {
      for (const node of restarted) await node.close();
      await fed?.close();
    });

    /** Stops a node and starts it again on the same port, data folder and database. */
    async function restart(node: RunningNode, whileDown: () => Promise<void>): Promise<RunningNode> {
      await node.close();
      await whileDown();
      const again = await startNode(node.ctx.config, { worker: false, logLevel: false });
      restarted.push(again);
      return again;
    }

    it("a target that was down gets the replica later, when it is back; one entry, no duplicate", async () => {
      const [mn1, mn2] = fed.mns as [RunningNode, RunningNode];
      const pid = uniquePid("later");
      const admin = { baseUrl: mn1.baseUrl, token: await fed.token(fed.adminSubject) };
      await okXml(await create(admin, pid, Buffer.from("later\n"), { extra: policy({ number: 1 }) }));
      await synchronizeToCn(fed, mn1, pid);
      let mn2Again = mn2;
      mn2Again = await restart(mn2, async () => {
        await scheduleReplication(fed.cn.ctx, pid);
        await settle([fed.cn, mn1]);
        const object = await fed.cn.ctx.db.objects.get(pid);
        assert.deepEqual(
          object?.sysmeta.replicas.map((r) => [r.replicaMemberNode, r.replicationStatus]),
          [[id(2), "failed"]],
        );
      });
      // The failure is older than the planner's wait before asking that node again (no sleeping through it).
      await changeReplicaList(fed.cn.ctx, pid, (current) =>
        current.replicas.map((r) => ({
          ...r,
          replicaVerified: new Date(r.replicaVerified.getTime() - 60_000),
        })),
      );
      assert.equal(await scanForReplication(fed.cn.ctx), 1);
      await settle([fed.cn, mn1, mn2Again]);
      const object = await fed.cn.ctx.db.objects.get(pid);
      assert.deepEqual(
        object?.sysmeta.replicas.map((r) => [r.replicaMemberNode, r.replicationStatus]),
        [[id(2), "completed"]],
      );
      assert.equal((await mn2Again.ctx.db.objects.get(pid))?.isReplica, true);
    });

    it("a source that is down while the target pulls: the pull is tried again and completes", async () => {
      const mn1 = fed.mns[0] as RunningNode;
      const mn2 = restarted[0] as RunningNode;
      const pid = uniquePid("source-down");
      const admin = { baseUrl: mn1.baseUrl, token: await fed.token(fed.adminSubject) };
      await okXml(await create(admin, pid, Buffer.from("source down\n"), { extra: policy({ number: 1 }) }));
      await synchronizeToCn(fed, mn1, pid);
      await scheduleReplication(fed.cn.ctx, pid);
      await settle([fed.cn]); // MN2 accepts: its pull is queued
      const mn1Again = await restart(mn1, async () => {
        await runDueTasks(mn2.ctx); // the pull fails: the source cannot be reached
        assert.equal((await mn2.ctx.tasks.pending())[PULL_REPLICA], 1);
      });
      await makeDueNow(mn2.ctx.db, PULL_REPLICA); // the queue's first retry delay, passed
      await settle([fed.cn, mn1Again, mn2]);
      const object = await fed.cn.ctx.db.objects.get(pid);
      assert.deepEqual(
        object?.sysmeta.replicas.map((r) => [r.replicaMemberNode, r.replicationStatus]),
        [[id(2), "completed"]],
      );
    });
  });
}

for (const dialect of testDialects()) {
  describe(`replication after synchronization (${dialect})`, () => {
    let fed: TestFederation;
    before(async () => {
      fed = await startTestFederation(dialect, {
        mnCount: 3,
        settings: (name) => (name === "cn" ? {} : { replicate: true }),
      });
    });
    after(() => fed?.close());

    it("create on MN1: synchronization plans the replicas; MN2 and MN3 complete them; resolve lists all three", async () => {
      const mn1 = fed.mns[0] as RunningNode;
      const pid = uniquePid("synced");
      const bytes = Buffer.from("synchronized, then replicated\n");
      const admin = { baseUrl: mn1.baseUrl, token: await fed.token(fed.adminSubject) };
      await okXml(await create(admin, pid, bytes, { extra: policy({ number: 2 }) }));
      const wanted = [`${id(1)}=completed`, `${id(2)}=completed`, `${id(3)}=completed`];
      await pollUntil(
        async () =>
          ((await fed.cn.ctx.db.objects.get(pid))?.sysmeta.replicas ?? [])
            .map((r) => `${r.replicaMemberNode}=${r.replicationStatus}`)
            .sort(),
        (replicas) => JSON.stringify(replicas) === JSON.stringify(wanted),
        30_000,
      );
      const cnCaller = { baseUrl: fed.cn.baseUrl, token: await fed.token(fed.adminSubject) };
      const resolved = await call(cnCaller, "GET", `/resolve/${enc(pid)}`, { redirect: "manual" });
      assert.equal(resolved.status, 303);
      const listed = [...(await resolved.text()).matchAll(/<nodeIdentifier>([^<]+)<\/nodeIdentifier>/g)].map(
        (m) => m[1],
      );
      assert.equal(listed[0], id(1)); // the authoritative Member Node first, then the replicas
      assert.deepEqual([...listed].sort(), [id(1), id(2), id(3)]);
      for (const mn of fed.mns.slice(1)) {
        assert.deepEqual(
          await bytesOf(await clientFor(fed.cn.ctx, mn.baseUrl).get(pid, bytes.length)),
          bytes,
        );
      }
    });
  });
}
