/** Who hears of a change, how often a silent node is asked again, which API version a node is called with. */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { versionFor } from "../../../src/federation/propagation/deliver.ts";
import { nodesHolding } from "../../../src/federation/propagation/holders.ts";
import { redeliveryDelayMs } from "../../../src/federation/propagation/tasks.ts";
import type { Node } from "../../../src/types/node.ts";
import type { Replica, ReplicationStatus } from "../../../src/types/sysmeta.ts";
import { storedObject } from "../../helpers/data/sysmeta.ts";

const replica = (replicaMemberNode: string, replicationStatus: ReplicationStatus): Replica => ({
  replicaMemberNode,
  replicationStatus,
  replicaVerified: new Date(0),
});

describe("change propagation", () => {
  it("announces to the authoritative MN and the completed replicas, never to this node", () => {
    const { sysmeta } = storedObject("p", {
      authoritativeMemberNode: "urn:node:A",
      replicas: [
        replica("urn:node:B", "completed"),
        replica("urn:node:C", "requested"),
        replica("urn:node:D", "failed"),
        replica("urn:node:A", "completed"),
        replica("urn:node:CN", "completed"),
      ],
    });
    assert.deepEqual(nodesHolding(sysmeta, "urn:node:CN"), ["urn:node:A", "urn:node:B"]);
    assert.deepEqual(nodesHolding({ ...sysmeta, replicas: [] }, "urn:node:A"), []);
  });

  it("asks a silent node again after 5 s, doubling, at most hourly", () => {
    assert.deepEqual([1, 2, 3, 4].map(redeliveryDelayMs), [5_000, 10_000, 20_000, 40_000]);
    assert.equal(redeliveryDelayMs(30), 3_600_000);
  });

  it("calls a node with v2 when its Node document lists the service in v2", () => {
    const node = (versions: string[]) =>
      ({
        services: versions.map((version) => ({ name: "MNRead", version, restrictions: [] })),
      }) as unknown as Node;
    assert.equal(versionFor(node(["v1", "v2"])), "v2");
    assert.equal(versionFor(node(["v1"])), "v1");
    assert.equal(versionFor(node(["v2"]), "MNCore"), "v1");
  });
});
