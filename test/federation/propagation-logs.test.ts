/**
 * Change propagation and log aggregation in a real local federation (a CN and two MNs listening, each with its
 * own database), on SQLite and PostgreSQL. Background tasks are driven with runDueTasks, node by node, so each
 * step is observable: a change on the CN is announced to the authoritative MN and the replica holder, each
 * refreshes from the CN copy and enforces it; a node that is down gets the announcement once it is back; a
 * stale announcement changes nothing; the MNs' events reach the CN's getLogRecords once, with their node ids.
 */
import assert from "node:assert/strict";
import { Readable } from "node:stream";
import { after, before, describe, it } from "node:test";
import { runLogAggregation } from "../../src/federation/logs/tasks.ts";
import type { Federation } from "../../src/node/local-federation.ts";
import { type RunningNode, startNode } from "../../src/node/start.ts";
import { ingest } from "../../src/objects/ingest.ts";
import { indexNewObject } from "../../src/search/indexing/hooks.ts";
import { runDueTasks } from "../../src/tasks/worker.ts";
import { parseLog } from "../../src/types/index.ts";
import { type Caller, call, create, enc, form, okXml } from "../helpers/clients/client.ts";
import { elementText, sysmetaXml, uniquePid } from "../helpers/data/sysmeta.ts";
import { startTestFederation } from "../helpers/nodes/federation.ts";
import { testDialects } from "../helpers/nodes/node.ts";
import { pollUntil } from "../helpers/time/eventually.ts";
import { validateXml } from "../helpers/validation/xmllint.ts";

const OWNER = "CN=Owner,O=d1node,C=US,DC=cilogon,DC=org";
const FRIEND = "CN=Friend,O=d1node,C=US,DC=cilogon,DC=org";
const NEW_OWNER = "CN=New Owner,O=d1node,C=US,DC=cilogon,DC=org";
const V1 = 'xmlns:d1="http://ns.dataone.org/service/types/v1"';
const BYTES = Buffer.from("station,temperature\nA,12.5\n");

const policyXml = (subject: string) =>
  `<?xml version="1.0" encoding="UTF-8"?><d1:accessPolicy ${V1}><allow><subject>${subject}</subject><permission>read</permission></allow></d1:accessPolicy>`;
const replicaXml = (nodeId: string) =>
  `<?xml version="1.0" encoding="UTF-8"?><d1:replica ${V1}><replicaMemberNode>${nodeId}</replicaMemberNode><replicationStatus>completed</replicationStatus><replicaVerified>2026-01-01T00:00:00Z</replicaVerified></d1:replica>`;

/** Run every due task on these nodes until none of them has one left. */
async function settle(...nodes: RunningNode[]): Promise<void> {
  for (let ran = 1; ran > 0; ) {
    ran = 0;
    for (const node of nodes) ran += await runDueTasks(node.ctx);
  }
}

for (const dialect of testDialects()) {
  describe(`change propagation and log aggregation (${dialect})`, () => {
    let fed: Federation & { dir: string };
    let cn: RunningNode;
    let mn1: RunningNode;
    let mn2: RunningNode;
    let restarted: RunningNode | undefined;
    const pid = uniquePid("propagated");
    const as = async (node: RunningNode, subject: string): Promise<Caller> => ({
      baseUrl: node.baseUrl,
      token: await fed.token(subject),
    });
    const serialOnCn = async () =>
      Number(
        elementText(
          await okXml(await call(await as(cn, fed.adminSubject), "GET", `/meta/${enc(pid)}`)),
          "serialVersion",
        ),
      );
    const metaOn = async (node: RunningNode) =>
      okXml(await call(await as(node, fed.adminSubject), "GET", `/meta/${enc(pid)}`));

    before(async () => {
      fed = await startTestFederation(dialect, { mnCount: 2, worker: false });
      cn = fed.cn;
      [mn1, mn2] = fed.mns as [RunningNode, RunningNode];
      // The object: created on MN1 (its authoritative node), private to its owner; registered with the CN.
      await okXml(await create(await as(mn1, OWNER), pid, BYTES, { rightsHolder: OWNER, readers: [] }));
      const sysmeta = await metaOn(mn1);
      await okXml(
        await call(await as(cn, fed.adminSubject), "POST", "/meta", {
          body: form({ pid, sysmeta: { xml: sysmeta } }),
        }),
      );
      // MN2 holds a replica (as MNReplication.replicate leaves it), which the CN lists as completed.
      const stored = await mn1.ctx.db.objects.get(pid);
      assert.ok(stored);
      const staged = await mn2.ctx.store.stage(Readable.from([BYTES]), {
        algorithm: stored.sysmeta.checksum.algorithm,
      });
      await ingest(mn2.ctx, "replication", staged, (tx, contentKey) =>
        tx.objects.insert({ sysmeta: stored.sysmeta, contentKey, digests: staged.digests, isReplica: true }),
      );
      await indexNewObject(mn2.ctx, pid);
      const replicated = await call(await as(cn, fed.adminSubject), "PUT", `/replicaMetadata/${enc(pid)}`, {
        body: form({ replicaMetadata: { xml: replicaXml(mn2.ctx.config.nodeId) }, serialVersion: "1" }),
      });
      assert.equal(replicated.status, 200, await replicated.clone().text());
      await settle(cn, mn1, mn2);
    });
    after(async () => {
      await restarted?.close();
      await fed?.close();
    });

    it("the replica list change reached both holders, with the CN's serialVersion", async () => {
      const serialVersion = await serialOnCn();
      assert.equal(serialVersion, 2);
      for (const node of [mn1, mn2]) {
        const xml = await metaOn(node);
        assert.equal(elementText(xml, "serialVersion"), "2");
        assert.equal(elementText(xml, "replicaMemberNode"), mn2.ctx.config.nodeId);
        assert.equal(elementText(xml, "authoritativeMemberNode"), mn1.ctx.config.nodeId);
      }
    });

    it("an access policy set on the CN reaches the MNs, which then let the new reader in", async () => {
      for (const node of [mn1, mn2]) {
        assert.equal((await call(await as(node, FRIEND), "GET", `/object/${enc(pid)}`)).status, 401);
      }
      const owner = await as(cn, OWNER);
      const body = form({
        accessPolicy: { xml: policyXml(FRIEND) },
        serialVersion: String(await serialOnCn()),
      });
      assert.equal((await call(owner, "PUT", `/accessRules/${enc(pid)}`, { body })).status, 200);
      // Nothing reaches an MN in the request: the announcement is a task on the CN.
      assert.equal((await call(await as(mn1, FRIEND), "GET", `/object/${enc(pid)}`)).status, 401);
      await settle(cn, mn1, mn2);
      for (const node of [mn1, mn2]) {
        const read = await call(await as(node, FRIEND), "GET", `/object/${enc(pid)}`);
        assert.equal(read.status, 200);
        assert.deepEqual(Buffer.from(await read.arrayBuffer()), BYTES);
        assert.equal(elementText(await metaOn(node), "serialVersion"), String(await serialOnCn()));
      }
    });

    it("archive on the CN propagates", async () => {
      const admin = await as(cn, fed.adminSubject);
      await okXml(await call(admin, "PUT", `/archive/${enc(pid)}`));
      await settle(cn, mn1, mn2);
      for (const node of [mn1, mn2]) assert.equal(elementText(await metaOn(node), "archived"), "true");
    });

    it("an MN that is down while the CN announces gets the change once it is back", async () => {
      const config = mn1.ctx.config;
      await mn1.close();
      const body = form({ userId: NEW_OWNER, serialVersion: String(await serialOnCn()) });
      await okXml(await call(await as(cn, OWNER), "PUT", `/owner/${enc(pid)}`, { body }));
      await settle(cn, mn2);
      assert.equal(elementText(await metaOn(mn2), "rightsHolder"), NEW_OWNER);
      const waiting = await cn.ctx.tasks.pending();
      assert.equal(waiting["sysmeta-changed"], 1, "the delivery to the stopped node waits for a retry");

      restarted = await startNode(config, { worker: false, logLevel: false });
      const started = restarted;
      await pollUntil(
        async () => {
          await settle(cn, started);
          return elementText(await metaOn(started), "rightsHolder");
        },
        (rightsHolder) => rightsHolder === NEW_OWNER,
        20_000,
      );
      assert.equal(elementText(await metaOn(restarted), "serialVersion"), String(await serialOnCn()));
      mn1 = restarted;
    });

    it("a stale announcement (lower serialVersion) changes nothing", async () => {
      const before = await metaOn(mn2);
      const cnCaller = await as(mn2, `CN=${cn.ctx.config.nodeId},DC=dataone,DC=org`);
      const body = form({ id: pid, serialVersion: "1", dateSysMetaLastModified: new Date().toISOString() });
      assert.equal((await call(cnCaller, "POST", "/dirtySystemMetadata", { body })).status, 200);
      assert.equal(await runDueTasks(mn2.ctx), 0, "no refresh was scheduled");
      assert.equal(await metaOn(mn2), before);
      // Announced as newer, but the CN's copy is not: the refresh runs and leaves the local copy as it is.
      const inflated = form({
        id: pid,
        serialVersion: "99",
        dateSysMetaLastModified: new Date().toISOString(),
      });
      assert.equal((await call(cnCaller, "POST", "/dirtySystemMetadata", { body: inflated })).status, 200);
      assert.equal(await runDueTasks(mn2.ctx), 1, "one refresh ran");
      assert.equal(await metaOn(mn2), before);
    });

    it("a node that refuses the announcement (it does not hold the object) ends the delivery as dead", async () => {
      const stray = uniquePid("stray");
      const nodeId = mn2.ctx.config.nodeId;
      const xml = sysmetaXml(stray, BYTES, {
        extra: `<originMemberNode>${nodeId}</originMemberNode><authoritativeMemberNode>${nodeId}</authoritativeMemberNode>`,
      });
      const admin = await as(cn, fed.adminSubject);
      await okXml(await call(admin, "POST", "/meta", { body: form({ pid: stray, sysmeta: { xml } }) }));
      await okXml(await call(admin, "PUT", `/archive/${enc(stray)}`));
      await settle(cn, mn2);
      const dead = (await cn.ctx.tasks.dead()).filter((task) => task.key === `${nodeId} ${stray}`);
      assert.equal(dead.length, 1);
      assert.match(dead[0]?.lastError ?? "", /InvalidRequest/);
    });

    it("the MNs' events reach the CN's getLogRecords once each, with their node ids, after two runs", async () => {
      for (const node of [mn1, mn2]) await call(await as(node, FRIEND), "GET", `/object/${enc(pid)}`);
      for (let run = 0; run < 2; run++) {
        await runLogAggregation(cn.ctx);
        await settle(cn);
      }
      const admin = await as(cn, fed.adminSubject);
      const xml = await okXml(await call(admin, "GET", "/log?count=10000"));
      await validateXml(xml);
      await validateXml(await okXml(await call({ ...admin, version: "v1" }, "GET", "/log?count=10000")));
      const onCn = parseLog(xml).items;
      const key = (e: { nodeIdentifier: string; identifier: string; event: string; dateLogged: Date }) =>
        `${e.nodeIdentifier} ${e.identifier} ${e.event} ${e.dateLogged.toISOString()}`;
      for (const node of [mn1, mn2]) {
        const own = parseLog(
          await okXml(await call(await as(node, fed.adminSubject), "GET", "/log?count=10000")),
        ).items;
        assert.ok(
          own.some((e) => e.event === "read" && e.subject === FRIEND),
          "the friend's read is logged",
        );
        const fromNode = onCn.filter((e) => e.nodeIdentifier === node.ctx.config.nodeId);
        assert.deepEqual(fromNode.map(key).sort(), own.map(key).sort());
      }
      const reads = parseLog(
        await okXml(await call(admin, "GET", `/log?event=read&idFilter=${enc(pid)}`)),
      ).items;
      // The friend read the object twice on each MN (here and after the access policy reached it).
      const [id1, id2] = [mn1.ctx.config.nodeId, mn2.ctx.config.nodeId];
      assert.deepEqual(reads.map((e) => e.nodeIdentifier).sort(), [id1, id1, id2, id2].sort());
      const anyone = parseLog(await okXml(await call(await as(cn, FRIEND), "GET", "/log")));
      assert.equal(anyone.total, 0, "others get an empty log");
    });
  });
}

describe("change propagation with the nodes' own workers", () => {
  let fed: Federation & { dir: string };
  after(() => fed?.close());

  it("a CN access policy change is enforced on the MN without anything driving the tasks", async () => {
    // The CN learns of the object by registerSystemMetadata below, not from the MN's own synchronize request.
    fed = await startTestFederation("sqlite", { mnCount: 1, settings: () => ({ notifyCn: false }) });
    const [mn] = fed.mns as [RunningNode];
    const pid = uniquePid("by-itself");
    const as = async (node: RunningNode, subject: string): Promise<Caller> => ({
      baseUrl: node.baseUrl,
      token: await fed.token(subject),
    });
    await okXml(await create(await as(mn, OWNER), pid, BYTES, { rightsHolder: OWNER, readers: [] }));
    const sysmeta = await okXml(await call(await as(mn, OWNER), "GET", `/meta/${enc(pid)}`));
    const admin = await as(fed.cn, fed.adminSubject);
    await okXml(await call(admin, "POST", "/meta", { body: form({ pid, sysmeta: { xml: sysmeta } }) }));
    const body = form({ accessPolicy: { xml: policyXml(FRIEND) }, serialVersion: "1" });
    assert.equal(
      (await call(await as(fed.cn, OWNER), "PUT", `/accessRules/${enc(pid)}`, { body })).status,
      200,
    );
    const friend = await as(mn, FRIEND);
    await pollUntil(
      async () => (await call(friend, "GET", `/meta/${enc(pid)}`)).status,
      (status) => status === 200,
      10_000,
    );
  });
});
