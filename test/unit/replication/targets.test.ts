/** Replication target selection over plain data: policy defaults, preferred and blocked nodes, node limits. */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { NodeRecord } from "../../../src/db/types.ts";
import {
  chooseTargets,
  countedReplicas,
  needsPlanning,
  type PlanInput,
  replicationVersion,
  sourceNode,
  wantedReplicas,
} from "../../../src/federation/replication/targets.ts";
import type { Node, NodeReplicationPolicy } from "../../../src/types/node.ts";
import type { Replica, ReplicationPolicy, SystemMetadata } from "../../../src/types/sysmeta.ts";
import { storedSysmeta } from "../../helpers/data/sysmeta.ts";

const NOW = new Date("2026-11-23T10:00:00Z");
const HOUR = 3600_000;

function node(
  id: string,
  o: {
    replicate?: boolean;
    versions?: string[];
    limits?: Partial<NodeReplicationPolicy>;
    type?: "mn" | "cn";
    down?: boolean;
  } = {},
): Node {
  const versions = o.versions ?? ["v1", "v2"];
  return {
    identifier: `urn:node:${id}`,
    name: id,
    description: id,
    baseURL: `https://${id.toLowerCase()}.example.org/mn`,
    services: versions.flatMap((version) =>
      ["MNRead", "MNReplication"].map((name) => ({ name, version, available: true, restrictions: [] })),
    ),
    ...(o.limits
      ? { nodeReplicationPolicy: { allowedNodes: [], allowedObjectFormats: [], ...o.limits } }
      : {}),
    subjects: [`CN=${id}`],
    contactSubjects: [`CN=${id}`],
    replicate: o.replicate ?? true,
    synchronize: true,
    type: o.type ?? "mn",
    state: o.down ? "down" : "up",
    properties: [],
  };
}

function sysmeta(policy: Partial<ReplicationPolicy> | undefined, replicas: Replica[] = []): SystemMetadata {
  return storedSysmeta("pid-1", {
    size: 100,
    accessPolicy: [],
    ...(policy ? { replicationPolicy: { preferredMemberNodes: [], blockedMemberNodes: [], ...policy } } : {}),
    authoritativeMemberNode: "urn:node:MN1",
    replicas,
  });
}

const replica = (id: string, status: Replica["replicationStatus"], ageMs = 0): Replica => ({
  replicaMemberNode: `urn:node:${id}`,
  replicationStatus: status,
  replicaVerified: new Date(NOW.getTime() - ageMs),
});

const NODES = [node("CN", { type: "cn" }), node("MN1"), node("MN2"), node("MN3"), node("MN4")];

function choose(s: SystemMetadata, o: Partial<PlanInput> = {}): string[] {
  return chooseTargets({
    sysmeta: s,
    nodes: NODES,
    records: new Map(),
    now: NOW,
    retryFailedAfterMs: HOUR,
    ...o,
  }).map((t) => t.nodeId.replace("urn:node:", ""));
}

describe("replication targets", () => {
  it("policy defaults: no policy or replicationAllowed=false asks for none; numberReplicas defaults to 3", () => {
    assert.equal(wantedReplicas(undefined), 0);
    assert.equal(
      wantedReplicas({
        replicationAllowed: false,
        numberReplicas: 2,
        preferredMemberNodes: [],
        blockedMemberNodes: [],
      }),
      0,
    );
    assert.equal(wantedReplicas({ preferredMemberNodes: [], blockedMemberNodes: [] }), 3);
    assert.deepEqual(choose(sysmeta(undefined)), []);
    assert.deepEqual(choose(sysmeta({})), ["MN2", "MN3", "MN4"]);
  });

  it("never the authoritative node, the CN, a blocked node or a node already holding or pending", () => {
    assert.deepEqual(choose(sysmeta({ numberReplicas: 2, blockedMemberNodes: ["urn:node:MN2"] })), [
      "MN3",
      "MN4",
    ]);
    const pending = sysmeta({ numberReplicas: 3 }, [
      replica("MN2", "completed"),
      replica("MN3", "requested"),
    ]);
    assert.deepEqual(choose(pending), ["MN4"]);
    // Blocked prevails over preferred.
    const both = sysmeta({
      numberReplicas: 1,
      preferredMemberNodes: ["urn:node:MN4"],
      blockedMemberNodes: ["urn:node:MN4"],
    });
    assert.deepEqual(choose(both), ["MN2"]);
  });

  it("numberReplicas counts completed and pending replicas, not the authoritative node's own entry", () => {
    const s = sysmeta({ numberReplicas: 2 }, [
      replica("MN1", "completed"),
      replica("MN2", "completed"),
      replica("MN3", "failed"),
    ]);
    assert.deepEqual(
      countedReplicas(s).map((r) => r.replicaMemberNode),
      ["urn:node:MN2"],
    );
    assert.deepEqual(choose(s), ["MN4"]);
    assert.equal(needsPlanning(s, NOW, HOUR), true);
    const full = sysmeta({ numberReplicas: 1 }, [replica("MN2", "completed")]);
    assert.equal(needsPlanning(full, NOW, HOUR), false);
    assert.deepEqual(choose(full), []);
  });

  it("preferred nodes first, in the policy's order; then nodes with fewer failures in a row", () => {
    const s = sysmeta({ numberReplicas: 2, preferredMemberNodes: ["urn:node:MN4", "urn:node:MN3"] });
    assert.deepEqual(choose(s), ["MN4", "MN3"]);
    const records = new Map<string, NodeRecord>([
      [
        "urn:node:MN2",
        {
          nodeId: "urn:node:MN2",
          consecutiveFailures: 4,
          failures: 4,
          completions: 0,
          lastFailureAt: NOW,
          lastFailure: "x",
        },
      ],
    ]);
    assert.deepEqual(choose(sysmeta({ numberReplicas: 2 }), { records }), ["MN3", "MN4"]);
  });

  it("a node whose replica failed is asked again only after the retry delay, and after the others", () => {
    const recent = sysmeta({ numberReplicas: 1 }, [replica("MN2", "failed", 60_000)]);
    assert.deepEqual(choose(recent), ["MN3"]);
    const onlyFailed = sysmeta({ numberReplicas: 3 }, [replica("MN2", "failed", 60_000)]);
    assert.deepEqual(choose(onlyFailed), ["MN3", "MN4"]);
    const old = sysmeta({ numberReplicas: 3 }, [replica("MN2", "invalidated", 2 * HOUR)]);
    assert.deepEqual(choose(old), ["MN3", "MN4", "MN2"]);
  });

  it("node limits: replicate=false, maxObjectSize, allowedObjectFormat, allowedNode, API versions, down", () => {
    const nodes = [
      node("MN1"),
      node("MN2", { replicate: false }),
      node("MN3", { limits: { maxObjectSize: 99 } }),
      node("MN4", { limits: { allowedObjectFormats: ["text/xml"] } }),
      node("MN5", { limits: { allowedNodes: ["urn:node:MN9"] } }),
      node("MN6", { down: true }),
      node("MN7", {
        limits: { maxObjectSize: 100, allowedObjectFormats: ["text/csv"], allowedNodes: ["urn:node:MN1"] },
      }),
    ];
    assert.deepEqual(choose(sysmeta({ numberReplicas: 5 }), { nodes }), ["MN7"]);
  });

  it("versions: the newest in which the target serves MNReplication and the source MNRead", () => {
    assert.equal(replicationVersion(node("A"), node("B")), "v2");
    assert.equal(replicationVersion(node("A", { versions: ["v1"] }), node("B")), "v1");
    assert.equal(
      replicationVersion(node("A", { versions: ["v2"] }), node("B", { versions: ["v1"] })),
      undefined,
    );
    const nodes = [node("MN1", { versions: ["v1"] }), node("MN2", { versions: ["v2"] }), node("MN3")];
    const targets = chooseTargets({
      sysmeta: sysmeta({ numberReplicas: 2 }),
      nodes,
      records: new Map(),
      now: NOW,
      retryFailedAfterMs: HOUR,
    });
    assert.deepEqual(targets, [{ nodeId: "urn:node:MN3", version: "v1" }]);
  });

  it("the source is the authoritative node, or a completed holder when it is down or unknown", () => {
    assert.equal(sourceNode(sysmeta({}), NODES)?.identifier, "urn:node:MN1");
    const nodes = [node("MN1", { down: true }), node("MN2"), node("MN3")];
    const s = sysmeta({ numberReplicas: 2 }, [replica("MN3", "completed")]);
    assert.equal(sourceNode(s, nodes)?.identifier, "urn:node:MN3");
    assert.equal(sourceNode(s, [node("MN2")]), undefined);
  });
});
