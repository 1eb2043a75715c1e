/**
 * Harvested objects race for one new seriesId: 16 objects with distinct PIDs, each on its own Member Node,
 * synchronized into one CN at the same moment (the path of both the scheduled harvest and CNRead.synchronize).
 * Exactly one holds the SID as head of its series; the others are refused and reported to their node
 * (synchronizationFailed). The Member Nodes are in-process sources (16 listening nodes would make a round take
 * seconds and the race would be between HTTP fetches, not in the CN's database); the CN's database is real.
 * 10 rounds: each round is 16 transactions on the CN, and 10 of them show the race as well as 20 do.
 */
import assert from "node:assert/strict";
import { before, describe, it } from "node:test";
import type { NodeContext } from "../../src/context/node-context.ts";
import type { Database } from "../../src/db/types.ts";
import { type SourceNode, synchronizeObject } from "../../src/federation/harvest/object.ts";
import { findByPidOrSid } from "../../src/services/shared/resolve.ts";
import { storedObject, uniquePid } from "../helpers/data/sysmeta.ts";
import { forEachDialect } from "../helpers/db/databases.ts";
import { contextOver } from "../helpers/nodes/federation-context.ts";
import { memberSource } from "../helpers/peers/member-source.ts";

const ROUNDS = 10;
const NODES = 16;

forEachDialect((_name, open) => {
  describe("harvested objects racing for one new seriesId", () => {
    let db: Database;
    let ctx: NodeContext;
    before(async () => {
      db = await open();
    });

    it("one object holds the SID on the CN; the others are refused and reported", async () => {
      ctx = await contextOver(db);
      // Refusals decided inside the write transaction (the identifiers row), not by the check before it: the
      // calls overlapped in the database.
      let refusedInTransaction = 0;
      for (let round = 0; round < ROUNDS; round++) {
        const sid = uniquePid("harvest-sid");
        const nodeIds = Array.from({ length: NODES }, (_, i) => `urn:node:RACEMN${i}`);
        const pids = nodeIds.map((_, i) => `${sid}-pid-${i}`);
        const nodes = pids.map((pid, i) => {
          const { sysmeta } = storedObject(pid, {
            seriesId: sid,
            authoritativeMemberNode: nodeIds[i],
            originMemberNode: nodeIds[i],
          });
          return memberSource({ ...sysmeta, obsoletedBy: undefined, replicas: [] });
        });
        const outcomes = await Promise.all(
          pids.map((pid, i) => synchronizeObject(ctx, nodeIds[i] as string, nodes[i] as SourceNode, pid)),
        );
        const winners = outcomes.flatMap((o, i) => (o === "created" ? [i] : []));
        assert.equal(winners.length, 1, `round ${round}: ${outcomes.join(", ")}`);
        const winner = winners[0] as number;
        for (const [i, node] of nodes.entries()) {
          if (i === winner) {
            assert.deepEqual(node.failures, []);
            continue;
          }
          assert.equal(outcomes[i], "failed");
          assert.equal(node.failures.length, 1, `node ${i} is told once`);
          assert.match(node.failures[0] as string, /^InvalidSystemMetadata: .*seriesId/);
          if (/can only continue the series/.test(node.failures[0] as string)) refusedInTransaction++;
          assert.equal(await db.objects.get(pids[i] as string), undefined, `${pids[i]} is not on the CN`);
        }
        assert.deepEqual(await db.objects.pidsOfSeries(sid), [pids[winner]]);
        assert.equal(await db.objects.headOfSeries(sid), pids[winner]);
        // getSystemMetadata(SID) on the CN resolves to the winner.
        assert.equal((await findByPidOrSid(ctx, sid)).sysmeta.identifier, pids[winner]);
      }
      assert.ok(refusedInTransaction > 0, "some racers reached the write transaction together");
    });
  });
});
