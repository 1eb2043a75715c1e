/**
 * The scheduled fixity audit (`auditInterval`): its task audits every stored object, records the run for the
 * status page and the metrics (`db.audit.latest()`, trigger "scheduled"), finds a flipped byte, and queues the
 * next run.
 */
import assert from "node:assert/strict";
import { createHash, randomBytes } from "node:crypto";
import { readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { after, describe, it } from "node:test";
import { FIXITY_AUDIT } from "../../../src/ops/scheduled-audit.ts";
import { runDueTasks } from "../../../src/tasks/worker.ts";
import { create } from "../../helpers/clients/client.ts";
import { uniquePid } from "../../helpers/data/sysmeta.ts";
import { makeDueNow } from "../../helpers/db/task-queue.ts";
import { ADMIN, startTestNode, type TestNode, testDialects } from "../../helpers/nodes/node.ts";

for (const dialect of testDialects()) {
  describe(`scheduled fixity audit (${dialect})`, () => {
    let node: TestNode | undefined;
    after(() => node?.close());

    it("records its findings and queues the next run", { timeout: 60_000 }, async () => {
      node = await startTestNode(
        dialect,
        { auditInterval: 1, auditRate: 0 },
        { logLevel: false, worker: false },
      );
      const admin = { baseUrl: node.baseUrl, token: await node.token(ADMIN) };
      const bytes = randomBytes(5000);
      assert.equal((await create(admin, uniquePid("sched"), bytes)).status, 200);
      const key = createHash("sha256").update(bytes).digest("hex");
      const file = path.join(node.dataDir, "store", "objects", key.slice(0, 2), key.slice(2, 4), key);
      const damaged = Buffer.from(await readFile(file));
      damaged[10] = (damaged[10] as number) ^ 0xff;
      await writeFile(file, damaged);

      const ctx = node.node.ctx;
      await makeDueNow(ctx.db, FIXITY_AUDIT); // its interval, passed
      await runDueTasks({
        ...ctx,
        taskHandlers: { [FIXITY_AUDIT]: ctx.taskHandlers[FIXITY_AUDIT] as never },
      });
      const latest = await ctx.db.audit.latest();
      assert.equal(latest?.trigger, "scheduled");
      assert.equal(latest?.objects, 1);
      assert.equal(latest?.mismatches, 1);
      assert.equal((await ctx.tasks.pending())[FIXITY_AUDIT], 1);
    });
  });
}
