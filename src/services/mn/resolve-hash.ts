/**
 * A hash URI resolved on a Member Node (an extension: MNRead has no resolve): the objects of this node with those
 * bytes, as CNRead.resolve's ObjectLocationList, its identifier the URI resolved and one location per object,
 * its get URL on this node. Each location serves the same bytes.
 */
import type { CallInfo, NodeContext } from "../../context/node-context.ts";
import type { ObjectLocationList } from "../../types/index.ts";
import { objectsWithHash } from "../shared/content-hash.ts";

export async function resolveHash(
  ctx: NodeContext,
  call: CallInfo,
  uri: string,
): Promise<ObjectLocationList> {
  const { nodeId, baseUrl } = ctx.config;
  const objects = await objectsWithHash(ctx, call, uri);
  return {
    identifier: uri,
    locations: objects.map((object) => ({
      nodeIdentifier: nodeId,
      baseURL: baseUrl,
      versions: ["v1", "v2"],
      url: `${baseUrl}/v2/object/${encodeURIComponent(object.sysmeta.identifier)}`,
    })),
  };
}
