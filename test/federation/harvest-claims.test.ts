/**
 * What the harvester believes of a Member Node: only what the node may say of its own objects. A new object
 * listed with another node as its authoritative node, or another registered node as its origin, is refused and
 * reported to the node; a node listing another node's object with the right size and made-up checksum (an MD5
 * of zeros, which the old comparison skipped because the algorithms differed) is not recorded as a completed
 * replica: it must answer getChecksum in the algorithm of the CN's record with the CN's checksum. The Member
 * Nodes are in-process sources; the CN's database is real, both dialects.
 */
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { Readable } from "node:stream";
import { before, describe, it } from "node:test";
import type { Database } from "../../src/db/types.ts";
import { NotFound } from "../../src/errors/exceptions.ts";
import { synchronizeObject } from "../../src/federation/harvest/object.ts";
import type { SystemMetadata } from "../../src/types/sysmeta.ts";
import { storedSysmeta, submittedSysmeta, uniquePid } from "../helpers/data/sysmeta.ts";
import { forEachDialect } from "../helpers/db/databases.ts";
import { contextOver } from "../helpers/nodes/federation-context.ts";
import { memberSource } from "../helpers/peers/member-source.ts";

const MN1 = "urn:node:CLAIMMN1";
const MN2 = "urn:node:CLAIMMN2";
const ZEROS = { algorithm: "MD5", value: "0".repeat(32) };

forEachDialect((_name, open) => {
  describe("what the harvester believes of a Member Node", () => {
    let db: Database;
    before(async () => {
      db = await open();
      for (const id of [MN1, MN2]) {
        const host = id.slice(9).toLowerCase();
        const nodeXml = `<?xml version="1.0"?><d1:node xmlns:d1="http://ns.dataone.org/service/types/v2.0" replicate="false" synchronize="true" type="mn" state="up"><identifier>${id}</identifier><name>n</name><description>d</description><baseURL>https://${host}.example.org/mn</baseURL><subject>CN=${id}</subject><contactSubject>CN=${id}</contactSubject></d1:node>`;
        await db.cn.addNode({
          nodeId: id,
          baseUrl: `https://${host}.example.org/mn`,
          nodeXml,
          approved: true,
          registeredBy: `CN=${id}`,
        });
      }
    });

    const sysmeta = (pid: string, node: string, overrides: Partial<SystemMetadata> = {}) =>
      storedSysmeta(pid, { authoritativeMemberNode: node, originMemberNode: node, ...overrides });

    it("a new object claimed for another node (authoritative and origin) is refused and reported", async () => {
      const ctx = await contextOver(db);
      const pid = uniquePid("claim-other");
      const mn2 = memberSource(sysmeta(pid, MN1));
      assert.equal(await synchronizeObject(ctx, MN2, mn2, pid), "failed");
      assert.match(
        mn2.failures[0] ?? "",
        /^InvalidSystemMetadata: .*authoritativeMemberNode urn:node:CLAIMMN1/,
      );
      assert.equal(await db.objects.get(pid), undefined);
    });

    it("another registered node as origin is refused; an origin outside the federation is kept", async () => {
      const ctx = await contextOver(db);
      const pid = uniquePid("claim-origin");
      const mn2 = memberSource(sysmeta(pid, MN2, { originMemberNode: MN1 }));
      assert.equal(await synchronizeObject(ctx, MN2, mn2, pid), "failed");
      assert.match(
        mn2.failures[0] ?? "",
        /originMemberNode urn:node:CLAIMMN1, another node of this federation/,
      );
      assert.equal(await db.objects.get(pid), undefined);

      const moved = uniquePid("claim-moved");
      const old = "urn:node:RETIRED";
      assert.equal(
        await synchronizeObject(
          ctx,
          MN2,
          memberSource(sysmeta(moved, MN2, { originMemberNode: old })),
          moved,
        ),
        "created",
      );
      const stored = (await db.objects.get(moved))?.sysmeta;
      assert.equal(stored?.authoritativeMemberNode, MN2);
      assert.equal(stored?.originMemberNode, old);
    });

    it("a replica claimed with the right size and an MD5 of zeros is not completed (nor listed)", async () => {
      const ctx = await contextOver(db);
      const pid = uniquePid("claim-replica");
      const original = sysmeta(pid, MN1);
      assert.equal(await synchronizeObject(ctx, MN1, memberSource(original), pid), "created");
      // MN2's story: the same size, an MD5 of zeros; asked for SHA-1 it keeps to its story, or makes one up.
      const claimed = { ...original, checksum: ZEROS };
      for (const answer of [() => ZEROS, () => ({ algorithm: "SHA-1", value: "1".repeat(40) })]) {
        const mn2 = memberSource(claimed, answer);
        assert.equal(await synchronizeObject(ctx, MN2, mn2, pid), "failed");
        assert.match(
          mn2.failures[0] ?? "",
          /^InvalidSystemMetadata: The replica on urn:node:CLAIMMN2 is not recorded/,
        );
      }
      // A node that answers NotFound holds nothing either.
      const empty = memberSource(claimed, () => {
        throw new NotFound("no such object");
      });
      assert.equal(await synchronizeObject(ctx, MN2, empty, pid), "failed");
      const replicas = (await db.objects.get(pid))?.sysmeta.replicas.map((r) => r.replicaMemberNode);
      assert.deepEqual(replicas, [MN1]);
    });

    it("a replica that proves its bytes in the CN's algorithm is completed, whatever its own algorithm", async () => {
      const ctx = await contextOver(db);
      const pid = uniquePid("claim-proved");
      const original = sysmeta(pid, MN1);
      assert.equal(await synchronizeObject(ctx, MN1, memberSource(original), pid), "created");
      const asked: string[] = [];
      const mn2 = memberSource(
        { ...original, checksum: { algorithm: "MD5", value: "a".repeat(32) } },
        (algorithm) => {
          asked.push(algorithm);
          return original.checksum;
        },
      );
      assert.equal(await synchronizeObject(ctx, MN2, mn2, pid), "updated");
      assert.deepEqual(asked, ["SHA-1"]);
      const replica = (await db.objects.get(pid))?.sysmeta.replicas.find((r) => r.replicaMemberNode === MN2);
      assert.equal(replica?.replicationStatus, "completed");
    });

    it("a metadata object the CN holds is challenged in an algorithm its system metadata does not publish", async () => {
      const ctx = await contextOver(db);
      const pid = uniquePid("claim-metadata");
      const bytes = Buffer.from(
        '<?xml version="1.0"?><eml:eml xmlns:eml="eml://ecoinformatics.org/eml-2.1.1"/>',
      );
      const original = {
        ...submittedSysmeta(pid, bytes, { formatId: "eml://ecoinformatics.org/eml-2.1.1", algorithm: "MD5" }),
        authoritativeMemberNode: MN1,
        originMemberNode: MN1,
      };
      const mn1 = { ...memberSource(original), get: async () => Readable.from([bytes]) };
      assert.equal(await synchronizeObject(ctx, MN1, mn1, pid), "created");
      // A node that knows only the published MD5 cannot answer the CN's SHA-256 of its own copy.
      const asked: string[] = [];
      const liar = memberSource(original, (algorithm) => {
        asked.push(algorithm);
        return algorithm === "MD5" ? original.checksum : { algorithm, value: "f".repeat(64) };
      });
      assert.equal(await synchronizeObject(ctx, MN2, liar, pid), "failed");
      assert.deepEqual(asked, ["SHA-256"]);
      const honest = memberSource(original, (algorithm) => ({
        algorithm,
        value: createHash("sha256").update(bytes).digest("hex"),
      }));
      assert.equal(await synchronizeObject(ctx, MN2, honest, pid), "updated");
      const replica = (await db.objects.get(pid))?.sysmeta.replicas.find((r) => r.replicaMemberNode === MN2);
      assert.equal(replica?.replicationStatus, "completed");
    });
  });
});
