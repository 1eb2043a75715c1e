/**
 * The CN's tables on SQLite and PostgreSQL: node registry (pending, approved, unique id and baseURL),
 * reservations and retired identifiers, the synchronize queue, accounts, equivalences, pending maps, groups; and
 * the serialVersion-conditional system metadata write, including two handles racing on the same record.
 */
import assert from "node:assert/strict";
import { before, describe, it } from "node:test";
import { StaleVersionError } from "../../../src/db/errors.ts";
import type { Database } from "../../../src/db/types.ts";
import { storedObject } from "../../helpers/data/sysmeta.ts";
import { forEachDialect } from "../../helpers/db/databases.ts";

forEachDialect((name, open) => {
  describe("CN tables", () => {
    let db: Database;
    before(async () => {
      db = await open();
    });

    const node = (nodeId: string, baseUrl: string) => ({
      nodeId,
      baseUrl,
      nodeXml: `<node>${nodeId}</node>`,
      approved: false,
      registeredBy: "CN=registrar",
    });

    it("registry: pending until approved; id and baseURL unique", async () => {
      assert.equal(await db.cn.addNode(node("urn:node:A1", "https://a1.example.org/mn")), true);
      assert.equal(await db.cn.addNode(node("urn:node:A1", "https://other.example.org/mn")), false);
      assert.equal(await db.cn.addNode(node("urn:node:A2", "https://a1.example.org/mn")), false);
      assert.deepEqual(await db.cn.nodes({ approvedOnly: true }), []);
      assert.equal(await db.cn.approveNode("urn:node:A1"), true);
      assert.equal(await db.cn.approveNode("urn:node:NONE"), false);
      assert.deepEqual(
        (await db.cn.nodes({ approvedOnly: true })).map((n) => n.nodeId),
        ["urn:node:A1"],
      );
      assert.equal(await db.cn.addNode(node("urn:node:A3", "https://a3.example.org/mn")), true);
      const a3 = (await db.cn.node("urn:node:A3"))?.nodeXml as string;
      const replace = (expected: string, baseUrl: string) =>
        db.cn.replaceNodeXml("urn:node:A3", expected, baseUrl, "<x/>");
      assert.equal(await replace(a3, "https://a1.example.org/mn"), "baseUrlTaken");
      assert.equal(await replace("<stale/>", "https://a3.example.org/mn"), "changed");
      assert.equal(await replace(a3, "https://a3.example.org/mn"), "replaced");
      assert.equal((await db.cn.node("urn:node:A3"))?.nodeXml, "<x/>");
      assert.equal((await db.cn.nodeByBaseUrl("https://a1.example.org/mn"))?.nodeId, "urn:node:A1");
    });

    it("reservations: one holder; release; retire keeps the identifier taken", async () => {
      assert.equal(await db.cn.reserve("res-1", "CN=a"), true);
      assert.equal(await db.cn.reserve("res-1", "CN=b"), false);
      await db.cn.releaseReservation("res-1");
      assert.equal(await db.cn.reservation("res-1"), undefined);
      await db.cn.retire("res-1");
      assert.deepEqual(await db.cn.reservation("res-1"), { id: "res-1", subject: "" });
      await db.cn.releaseReservation("res-1");
      assert.equal((await db.cn.reservation("res-1"))?.subject, "");
      assert.equal(await db.cn.reserve("res-1", "CN=a"), false);
    });

    it("synchronize queue keeps its order", async () => {
      await db.cn.queueSync("p1", "urn:node:A1", "CN=a");
      await db.cn.queueSync("p2", "urn:node:A1", "CN=a");
      assert.deepEqual(
        (await db.cn.syncTasks()).map((t) => t.pid),
        ["p1", "p2"],
      );
    });

    it("accounts, equivalences (both directions), pending maps, groups", async () => {
      assert.equal(await db.cn.addAccount({ subject: "CN=a", person: "{}", verified: false }), true);
      assert.equal(await db.cn.addAccount({ subject: "CN=a", person: "{}", verified: false }), false);
      await db.cn.replaceAccount({ subject: "CN=a", person: '{"x":1}', verified: true });
      assert.deepEqual(await db.cn.account("CN=a"), { subject: "CN=a", person: '{"x":1}', verified: true });
      const ids = db.cn.identities;
      assert.equal(await ids.addEquivalence("CN=a", "CN=b"), true);
      assert.equal(await ids.addEquivalence("CN=b", "CN=a"), false);
      assert.deepEqual(await ids.equivalents("CN=b"), ["CN=a"]);
      assert.equal(await ids.removeEquivalence("CN=b", "CN=a"), true);
      assert.deepEqual(await ids.equivalents("CN=a"), []);
      assert.equal(await ids.addPendingMap("CN=a", "CN=c"), true);
      assert.equal(await ids.addPendingMap("CN=a", "CN=c"), false);
      assert.deepEqual(await ids.pendingFor("CN=c"), ["CN=a"]);
      assert.equal(await ids.removePendingMap("CN=a", "CN=c"), true);
      assert.equal(await ids.removePendingMap("CN=a", "CN=c"), false);
      assert.equal(await ids.addGroup({ subject: "CN=g", groupName: "G", json: "{}" }), true);
      assert.equal(await ids.addGroup({ subject: "CN=g2", groupName: "G", json: "{}" }), false);
      await ids.replaceGroup({ subject: "CN=g", groupName: "G", json: '{"y":2}' });
      assert.equal((await ids.group("CN=g"))?.json, '{"y":2}');
    });

    it(`a write conditional on serialVersion: stale is refused; racing writers, one wins (${name})`, async () => {
      const object = storedObject("cn-cond", { serialVersion: 3 });
      await db.objects.insert(object);
      await assert.rejects(
        db.objects.replaceSysmeta({ ...object.sysmeta, serialVersion: 4 }, 2),
        StaleVersionError,
      );
      // PostgreSQL: two pools on the same database; SQLite holds its file exclusively, so one handle.
      const other = name === "postgres" ? await open(db) : db;
      const results = await Promise.allSettled(
        [db, other, db, other].map((handle, i) =>
          handle.transaction(async (tx) => {
            const current = await tx.objects.get("cn-cond");
            assert.ok(current);
            // Every writer read serialVersion 3 before and asks for exactly that.
            await tx.objects.replaceSysmeta({ ...current.sysmeta, formatId: `f${i}`, serialVersion: 4 }, 3);
          }),
        ),
      );
      assert.equal(results.filter((r) => r.status === "fulfilled").length, 1);
      assert.equal((await db.objects.get("cn-cond"))?.sysmeta.serialVersion, 4);
    });
  });
});
