/**
 * The ping recorder (state, ping), the harvester (synchronization.lastHarvested) and the node's own
 * updateNodeCapabilities write the same Node document at the same time, many times over; each write is
 * conditional on the document it read, so none overwrites another's fields. SQLite and PostgreSQL.
 */
import assert from "node:assert/strict";
import { before, describe, it } from "node:test";
import type { CallInfo, NodeContext } from "../../src/context/node-context.ts";
import type { Database } from "../../src/db/types.ts";
import { recordHarvested } from "../../src/federation/harvest/registry.ts";
import { recordPing } from "../../src/federation/health/ping.ts";
import { updateNodeCapabilities } from "../../src/services/cn/register.ts";
import { parseNode, serializeNode } from "../../src/types/index.ts";
import type { Node } from "../../src/types/node.ts";
import { forEachDialect } from "../helpers/db/databases.ts";
import { contextOver } from "../helpers/nodes/federation-context.ts";

const NODE_ID = "urn:node:RACEMN";

const memberNode: Node = {
  identifier: NODE_ID,
  name: "Race",
  description: "A Member Node two writers update at once",
  baseURL: "https://race.example.org/mn",
  services: [{ name: "MNCore", version: "v2", available: true, restrictions: [] }],
  synchronization: { schedule: { sec: "0", min: "*", hour: "*", mday: "*", mon: "*", wday: "?", year: "*" } },
  subjects: [`CN=${NODE_ID},DC=dataone,DC=org`],
  contactSubjects: ["CN=Contact,DC=dataone,DC=org"],
  replicate: false,
  synchronize: true,
  type: "mn",
  state: "down",
  properties: [],
};

forEachDialect((_name, open) => {
  let db: Database;

  /** The stored document after a round: the successful ping's fields and the harvest's date are there. */
  async function pingAndHarvestKept(round: number, harvestedTo: Date): Promise<Node> {
    const node = parseNode((await db.cn.node(NODE_ID))?.nodeXml as string);
    assert.equal(node.state, "up", `round ${round}: the ping's state survives`);
    assert.equal(node.ping?.success, true, `round ${round}: the ping survives`);
    assert.equal(
      node.synchronization?.lastHarvested?.toISOString(),
      harvestedTo.toISOString(),
      `round ${round}: the harvest's lastHarvested survives`,
    );
    return node;
  }

  describe("ping recorder and harvester writing one Node document", () => {
    let ctx: NodeContext;
    before(async () => {
      db = await open();
      ctx = await contextOver(db, { role: "cn" });
      await db.cn.addNode({
        nodeId: NODE_ID,
        baseUrl: memberNode.baseURL,
        nodeXml: serializeNode(memberNode, "v2"),
        approved: true,
        registeredBy: memberNode.subjects[0] as string,
      });
    });

    it("keeps both writers' fields however their reads and writes interleave", async () => {
      const rounds = 20;
      let latestHarvest = new Date(0);
      for (let round = 1; round <= rounds; round++) {
        const harvestedTo = new Date(Date.UTC(2026, 0, 1, 0, 0, round));
        latestHarvest = harvestedTo;
        // Each starts from the same stored document: without conditional writes one loses its change.
        await Promise.all([
          recordHarvested(ctx, NODE_ID, harvestedTo, round === 1),
          recordPing(ctx, NODE_ID, true),
        ]);
        await pingAndHarvestKept(round, harvestedTo);
        await recordPing(ctx, NODE_ID, false); // down again, so the next round's ping changes the document
      }
      const node = parseNode((await db.cn.node(NODE_ID))?.nodeXml as string);
      assert.equal(node.synchronization?.lastCompleteHarvest?.toISOString(), "2026-01-01T00:00:01.000Z");
      assert.equal(node.synchronization?.lastHarvested?.toISOString(), latestHarvest.toISOString());
      assert.equal(node.state, "down");
      assert.ok(node.ping?.lastSuccess, "a failed ping keeps the last success");
    });

    it("updateNodeCapabilities keeps a concurrent ping's and harvest's fields", async () => {
      const subject = memberNode.subjects[0] as string;
      const theNode: CallInfo = {
        session: { subject, subjects: new Set([subject]), authenticated: true, isAdmin: false, isCn: false },
        ipAddress: "127.0.0.1",
        userAgent: "test",
      };
      for (let round = 1; round <= 20; round++) {
        const harvestedTo = new Date(Date.UTC(2026, 1, 1, 0, 0, round));
        // The node sends what it believes: down, never harvested; the CN's own fields must survive.
        const update: Node = { ...memberNode, name: `Race ${round}`, state: "down" };
        await Promise.all([
          updateNodeCapabilities(ctx, theNode, NODE_ID, update),
          recordHarvested(ctx, NODE_ID, harvestedTo, false),
          recordPing(ctx, NODE_ID, true),
        ]);
        const node = await pingAndHarvestKept(round, harvestedTo);
        assert.equal(node.name, `Race ${round}`, `round ${round}: the update is stored`);
        assert.equal(node.synchronization?.lastCompleteHarvest?.toISOString(), "2026-01-01T00:00:01.000Z");
        await recordPing(ctx, NODE_ID, false);
      }
      assert.equal((await db.cn.node(NODE_ID))?.approved, true, "approval is kept");
    });

    it("a document changed by another writer between read and write is not overwritten", async () => {
      const row = await db.cn.node(NODE_ID);
      assert.ok(row);
      await recordPing(ctx, NODE_ID, true);
      assert.equal(await db.cn.swapNodeXml(NODE_ID, row.nodeXml, "<stale/>"), false);
      assert.equal(parseNode((await db.cn.node(NODE_ID))?.nodeXml as string).state, "up");
    });
  });
});
