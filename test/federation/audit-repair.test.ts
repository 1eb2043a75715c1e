/**
 * Repair from a replica: an object on MN1 is replicated to MN2; a byte of one copy is flipped (or the file
 * removed); the fixity audit with repair fetches a good copy from the other holder, verifies it and replaces the
 * bad file; the run records it as repaired, and a second audit is clean. A node no other holds stays unrepaired.
 */
import assert from "node:assert/strict";
import { readdir, readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import type { RunningNode } from "../../src/node/start.ts";
import { auditStoredObjects } from "../../src/ops/audit.ts";
import { repairFromReplicas } from "../../src/ops/repair.ts";
import { FIXITY_AUDIT, runFixityAudit } from "../../src/ops/scheduled-audit.ts";
import { scheduleReplication } from "../../src/services/cn/replica-outcomes.ts";
import { create, okXml } from "../helpers/clients/client.ts";
import { uniquePid } from "../helpers/data/sysmeta.ts";
import { runCli } from "../helpers/nodes/cli.ts";
import { startTestFederation, type TestFederation } from "../helpers/nodes/federation.ts";
import { testDialects } from "../helpers/nodes/node.ts";
import { removeStoredBytes, settle, synchronizeToCn } from "../helpers/nodes/replication.ts";

const POLICY = `<replicationPolicy replicationAllowed="true" numberReplicas="1"></replicationPolicy>`;

async function fileOf(dir: string, key: string): Promise<string | undefined> {
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) {
      const found = await fileOf(full, key);
      if (found) return found;
    } else if (entry.name === key) return full;
  }
  return undefined;
}

/** Flips one bit of one byte of the node's stored copy. */
async function flipOneByte(node: RunningNode, pid: string): Promise<void> {
  const object = await node.ctx.db.objects.get(pid);
  assert.ok(object);
  const file = await fileOf(path.join(node.ctx.config.dataDir, "store"), object.contentKey);
  assert.ok(file);
  const bytes = await readFile(file);
  bytes[3] = (bytes[3] ?? 0) ^ 0x01;
  await writeFile(file, bytes);
}

for (const dialect of testDialects()) {
  describe(`audit --repair from a replica (${dialect})`, () => {
    let fed: TestFederation;
    let mn1: RunningNode;
    let mn2: RunningNode;

    before(async () => {
      fed = await startTestFederation(dialect, {
        mnCount: 2,
        worker: false,
        settings: (name) =>
          name === "cn"
            ? { replicationScanInterval: 0, replicaAuditInterval: 0, replicaAuditAge: 0, nodePingInterval: 0 }
            : // The scheduled audit is run by hand below (its first run is due a day after the start).
              { replicate: true, auditInterval: 86_400, auditRepair: true },
      });
      [mn1, mn2] = fed.mns as [RunningNode, RunningNode];
    });
    after(() => fed?.close());

    async function replicated(tag: string, bytes: Buffer, policy = POLICY): Promise<string> {
      const pid = uniquePid(tag);
      const admin = { baseUrl: mn1.baseUrl, token: await fed.token(fed.adminSubject) };
      await okXml(await create(admin, pid, bytes, { readers: ["public"], extra: policy }));
      await synchronizeToCn(fed, mn1, pid);
      await scheduleReplication(fed.cn.ctx, pid);
      await settle([fed.cn, ...fed.mns]);
      return pid;
    }

    const audit = (node: RunningNode, repair: boolean) =>
      auditStoredObjects(node.ctx, {
        trigger: "command",
        repair: repair ? repairFromReplicas(node.ctx) : undefined,
      });

    it("a flipped byte in the replica is repaired from the original; the next audit is clean", async () => {
      const bytes = Buffer.from("site,value\nA,1\nB,2\nC,3\n");
      const pid = await replicated("repair-replica", bytes);
      assert.equal((await mn2.ctx.db.objects.get(pid))?.isReplica, true);
      await flipOneByte(mn2, pid);

      const run = await audit(mn2, true);
      assert.equal(run.mismatches, 1);
      assert.equal(run.repaired, 1);
      assert.equal(run.findings[0]?.pid, pid);
      assert.equal(run.findings[0]?.repaired, true);
      assert.equal((await mn2.ctx.db.audit.latest())?.repaired, 1);

      const again = await audit(mn2, false);
      assert.equal(again.mismatches + again.missing, 0);
      const object = await mn2.ctx.db.objects.get(pid);
      assert.ok(object);
      const chunks: Buffer[] = [];
      for await (const chunk of mn2.ctx.store.read(object.contentKey)) chunks.push(chunk as Buffer);
      assert.deepEqual(Buffer.concat(chunks), bytes);
    });

    it("`d1node audit --repair` on the running node repairs and says so; the next audit passes", {
      skip: dialect !== "sqlite" && "the command reaches a running node over its control socket on SQLite",
      timeout: 60_000,
    }, async () => {
      const pid = await replicated("repair-cli", Buffer.from("repaired by the command\n"));
      await flipOneByte(mn2, pid);
      const flags = ["--data-dir", mn2.ctx.config.dataDir];
      const run = await runCli(["audit", "--repair", ...flags]);
      assert.equal(run.code, 0, run.stderr);
      assert.match(run.stdout, new RegExp(`MISMATCH ${pid}: .*\\(repaired from another node\\)`));
      assert.match(run.stdout, /1 mismatched, 0 missing, 1 repaired/);
      const again = await runCli(["audit", ...flags]);
      assert.equal(again.code, 0, again.stdout);
      assert.match(again.stdout, /0 mismatched, 0 missing/);
    });

    it("the original's missing bytes are fetched back from the replica", async () => {
      const pid = await replicated("repair-original", Buffer.from("original bytes, lost on disk\n"));
      await removeStoredBytes(mn1, pid);
      const run = await audit(mn1, true);
      assert.equal(run.missing, 1);
      assert.equal(run.repaired, 1);
      const again = await audit(mn1, false);
      assert.equal(again.mismatches + again.missing, 0);
    });

    it("the scheduled audit repairs when auditRepair is set", async () => {
      const pid = await replicated("repair-scheduled", Buffer.from("repaired on schedule\n"));
      await flipOneByte(mn2, pid);
      await runFixityAudit(mn2.ctx, { id: 0, kind: FIXITY_AUDIT, key: "", payload: {}, attempts: 1 });
      const latest = await mn2.ctx.db.audit.latest();
      assert.equal(latest?.trigger, "scheduled");
      assert.equal(latest?.mismatches, 1);
      assert.equal(latest?.repaired, 1);
      assert.equal((await audit(mn2, false)).mismatches, 0);
    });

    it("without another holder the finding stays unrepaired and nothing is stored", async () => {
      const pid = uniquePid("repair-alone");
      const admin = { baseUrl: mn1.baseUrl, token: await fed.token(fed.adminSubject) };
      await okXml(await create(admin, pid, Buffer.from("only here\n"), { readers: ["public"] }));
      await synchronizeToCn(fed, mn1, pid);
      await flipOneByte(mn1, pid);
      const run = await audit(mn1, true);
      assert.equal(run.mismatches, 1);
      assert.equal(run.repaired, 0);
      const still = await audit(mn1, false);
      assert.equal(still.mismatches, 1);
      // Put the bytes right for later tests (they audit the whole node).
      await flipOneByte(mn1, pid);
      assert.equal((await audit(mn1, false)).mismatches, 0);
    });
  });
}
