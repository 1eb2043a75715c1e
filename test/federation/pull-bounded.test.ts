/**
 * A replica pull (MNReplication.replicate's getReplica from the source) stops at the byte past the declared
 * size: a source sending endless bytes for a 1,000-byte object fails the pull with InvalidSystemMetadata (a final
 * failure, reported to the CN rather than retried), stores nothing and leaves no temporary bytes. Both dialects.
 */
import assert from "node:assert/strict";
import { readdir } from "node:fs/promises";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import type { NodeContext } from "../../src/context/node-context.ts";
import type { Database } from "../../src/db/types.ts";
import { D1Error } from "../../src/errors/exceptions.ts";
import { pullReplica } from "../../src/federation/replication/pull.ts";
import { submittedSysmeta, uniquePid } from "../helpers/data/sysmeta.ts";
import { forEachDialect } from "../helpers/db/databases.ts";
import { contextOver } from "../helpers/nodes/federation-context.ts";
import { EVIL, type HostilePeer, startHostilePeer } from "../helpers/peers/hostile-peer.ts";

forEachDialect((_name, open) => {
  describe("a replica pull from a source sending too many bytes", () => {
    const pid = uniquePid("pull-bounded");
    const sysmeta = submittedSysmeta(pid, Buffer.alloc(1000, "a"));
    let db: Database;
    let ctx: NodeContext;
    let peer: HostilePeer;
    before(async () => {
      db = await open();
      peer = await startHostilePeer(sysmeta);
    });
    after(() => peer.close());

    it("stops at the byte past the declared size; nothing is stored or left staged", async () => {
      // Made here: the context's folder is removed after the test that makes it.
      ctx = await contextOver(db, { cnBaseUrl: peer.baseUrl, nodeId: "urn:node:TARGET" });
      let completed = false;
      await assert.rejects(
        pullReplica(ctx, sysmeta, EVIL, "v2", async () => {
          completed = true;
        }),
        (error: unknown) => {
          assert.ok(error instanceof D1Error, String(error));
          assert.equal(error.exception, "InvalidSystemMetadata");
          assert.match(error.description, /more than the 1000 bytes/);
          return true;
        },
      );
      assert.equal(completed, false);
      assert.equal(await db.objects.get(pid), undefined);
      assert.ok(
        peer.sent() < 64 * 1024 * 1024,
        `the source wrote ${peer.sent()} bytes before it was cut off`,
      );
      const store = path.join(ctx.config.dataDir, "store");
      const files = (await readdir(store, { recursive: true, withFileTypes: true })).filter((e) =>
        e.isFile(),
      );
      assert.deepEqual(
        files.map((e) => e.name),
        [],
      );
    });
  });
});
