/**
 * Node health on the Coordinating Node: every `nodePingInterval` seconds the CN pings each approved Member Node
 * (MNCore.ping) and records the answer in the node's entry, as listNodes shows it: `ping success` and
 * `lastSuccess`, and the node `state` ("up" when it answered, "down" when not). Harvests and replication plan
 * no work for a node that is down (harvest/requests.ts, replication/targets.ts); when it is up again its harvest
 * is due at once and the replicas that failed while it was down are planned again (returned.ts), so they
 * complete within a ping interval or so of its return instead of after `replicationRequestTimeout`.
 */

import type { NodeContext } from "../../context/node-context.ts";
import { changeNodeDocument } from "../../services/cn/node-document.ts";
import { approvedNodes } from "../../services/cn/nodes.ts";
import type { Node } from "../../types/node.ts";
import { clientFor } from "../client.ts";
import { versionFor } from "../propagation/deliver.ts";
import { nodeReturned } from "./returned.ts";

export const NODE_PING = "node-ping";

/** One pass: every approved Member Node pinged at once, each answer recorded. */
export async function pingNodes(ctx: NodeContext): Promise<void> {
  if (ctx.config.role !== "cn") return;
  const nodes = (await approvedNodes(ctx)).filter((n) => n.type === "mn");
  await Promise.all(nodes.map((node) => pingNode(ctx, node)));
  if (ctx.config.nodePingInterval > 0) {
    const runAt = new Date(Date.now() + ctx.config.nodePingInterval * 1000);
    await ctx.tasks.enqueue(NODE_PING, NODE_PING, null, { runAt });
  }
}

async function pingNode(ctx: NodeContext, node: Node): Promise<void> {
  const client = clientFor(ctx, node.baseURL, { version: versionFor(node, "MNCore"), timeoutMs: 10_000 });
  let failure: string | undefined;
  try {
    await client.ping();
  } catch (error) {
    failure = error instanceof Error ? error.message : String(error);
  }
  const before = await recordPing(ctx, node.identifier, failure === undefined);
  if (before === undefined) return;
  const id = node.identifier;
  if (failure !== undefined && before.state !== "down") {
    ctx.log.warn(
      { node: id },
      `${id} is down (ping: ${failure}); no harvest or replica is planned for it until it answers again`,
    );
  } else if (failure === undefined && before.state === "down") {
    ctx.log.info(
      { node: id },
      `${id} is up again; its harvest and the replicas that failed meanwhile resume`,
    );
    await nodeReturned(ctx, id, before.ping?.lastSuccess);
  }
}

/** Writes the ping's outcome into the node's entry; the entry as it was before (undefined: no longer there). */
export function recordPing(ctx: NodeContext, nodeId: string, success: boolean): Promise<Node | undefined> {
  return changeNodeDocument(ctx, nodeId, (before) => ({
    ...before,
    state: success ? "up" : "down",
    ping:
      success || before.ping?.lastSuccess === undefined
        ? { success, ...(success ? { lastSuccess: new Date() } : {}) }
        : { success, lastSuccess: before.ping.lastSuccess },
  }));
}

/** A CN pings its Member Nodes from its start. */
export async function startNodePings(ctx: NodeContext): Promise<void> {
  if (ctx.config.role === "cn" && ctx.config.nodePingInterval > 0)
    await ctx.tasks.enqueue(NODE_PING, NODE_PING, null);
}
