/**
 * CNRead: get, getChecksum (the recorded one), resolve, synchronize. getSystemMetadata, describe and listObjects
 * are the MN's, over the CN's tables; the query engine and search are in `search.ts` and the query routes.
 */
import { isAllowed, isTrusted } from "../../auth/access.ts";
import type { CallInfo, NodeContext } from "../../context/node-context.ts";
import { NotAuthorized, NotFound } from "../../errors/exceptions.ts";
import { looksLikeHashUri } from "../../types/content-hash.ts";
import type { ObjectLocation, ObjectLocationList } from "../../types/index.ts";
import type { StoredObject } from "../../types/stored-object.ts";
import type { Checksum, SystemMetadata } from "../../types/sysmeta.ts";
import { requireIdentifier } from "../identifiers.ts";
import * as mnRead from "../mn/read.ts";
import { objectsWithHash } from "../shared/content-hash.ts";
import { findByPidOrSid } from "../shared/resolve.ts";
import { NO_BYTES } from "./core.ts";
import { requestSynchronization } from "./harvest-requests.ts";
import { actsAsNode } from "./node-subjects.ts";
import { approvedNode, approvedNodes } from "./nodes.ts";

/** CNRead.get: "NotFound:1020 (body should refer to resolve)" when the bytes live on Member Nodes only. */
export async function get(ctx: NodeContext, call: CallInfo, id: string, choose?: mnRead.Choose) {
  const object = await mnRead.readableObject(ctx, call, id);
  if (object.contentKey === NO_BYTES) {
    throw new NotFound(
      `The bytes of "${object.sysmeta.identifier}" are held by Member Nodes, not this Coordinating Node; ` +
        "CNRead.resolve lists where to get them.",
      { pid: id },
    );
  }
  return mnRead.get(ctx, call, id, choose);
}

/**
 * CNRead.getSystemMetadata: "Authoritative copy of the system metadata", for those who may read the object and
 * for the Member Nodes holding it (its authoritative node and the nodes in its replica list), which refresh their
 * copies from this one whatever its access policy says.
 */
export async function getSystemMetadata(
  ctx: NodeContext,
  call: CallInfo,
  id: string,
): Promise<SystemMetadata> {
  const object = await findByPidOrSid(ctx, id);
  const { sysmeta } = object;
  if (isAllowed(call.session, "read", sysmeta) || (await isHoldingNode(ctx, call, sysmeta))) return sysmeta;
  throw new NotAuthorized(`${call.session.subject} may not read "${sysmeta.identifier}".`, { pid: id });
}

/** The caller speaks for an approved Member Node that holds (or is to hold) the object. */
async function isHoldingNode(ctx: NodeContext, call: CallInfo, sysmeta: SystemMetadata): Promise<boolean> {
  const holders = new Set([
    sysmeta.authoritativeMemberNode,
    ...sysmeta.replicas.map((r) => r.replicaMemberNode),
  ]);
  const nodes = await approvedNodes(ctx);
  return nodes.some((node) => node.type === "mn" && holders.has(node.identifier) && actsAsNode(node, call));
}

/** CNRead.getChecksum: "Returns the checksum recorded in the system metadata; no algorithm parameter." */
export async function getChecksum(ctx: NodeContext, call: CallInfo, id: string): Promise<Checksum> {
  return (await mnRead.readableObject(ctx, call, id)).sysmeta.checksum;
}

/** The get URL of an object on a node: "{baseURL}/v2/object/{id}", the identifier as one path segment. */
function objectUrl(baseUrl: string, pid: string): string {
  return `${baseUrl}/v2/object/${encodeURIComponent(pid)}`;
}

/**
 * CNRead.resolve: "A SID resolves to the HEAD PID." Locations are the authoritative Member Node (unless its own
 * replica entry says its copy failed or was invalidated), the approved nodes holding a completed replica, and
 * this CN when it holds the bytes itself. A hash URI (`hash://sha256/<hex>`) that is no object's identifier
 * resolves to the places of every readable object with those bytes (resolveHash).
 */
export async function resolve(ctx: NodeContext, call: CallInfo, id: string): Promise<ObjectLocationList> {
  if (looksLikeHashUri(id) && !(await ctx.db.objects.isIdentifierInUse(id)))
    return resolveHash(ctx, call, id);
  const object: StoredObject = await mnRead.readableObject(ctx, call, id);
  const pid = object.sysmeta.identifier;
  const locations = await locationsOf(ctx, object);
  if (locations.length === 0) {
    throw new NotFound(`No node is known to hold a complete copy of "${pid}".`, { pid: id });
  }
  return { identifier: pid, locations };
}

/**
 * A hash URI resolved: the ObjectLocationList of the URI itself (it names bytes, not one object), listing the
 * locations of each readable object with those bytes, oldest upload first, each URL once. Any of them serves the
 * same bytes. Which digests the CN knows: docs/decisions.md, "Lookup by content hash".
 */
async function resolveHash(ctx: NodeContext, call: CallInfo, uri: string): Promise<ObjectLocationList> {
  const locations: ObjectLocation[] = [];
  const urls = new Set<string>();
  for (const object of await objectsWithHash(ctx, call, uri)) {
    for (const location of await locationsOf(ctx, object)) {
      if (urls.has(location.url)) continue;
      urls.add(location.url);
      locations.push(location);
    }
  }
  if (locations.length === 0) {
    throw new NotFound(`No node is known to hold a complete copy of the bytes "${uri}" names.`, { pid: uri });
  }
  return { identifier: uri, locations };
}

/** Where the object's bytes can be read (CNRead.resolve's rule, above). */
async function locationsOf(ctx: NodeContext, object: StoredObject): Promise<ObjectLocation[]> {
  const pid = object.sysmeta.identifier;
  const locations: ObjectLocation[] = [];
  const seen = new Set<string>();
  const add = async (nodeId: string) => {
    if (seen.has(nodeId)) return;
    seen.add(nodeId);
    const node = await approvedNode(ctx, nodeId);
    if (!node) return;
    const versions = [...new Set(node.services.map((s) => s.version))].sort().reverse();
    locations.push({
      nodeIdentifier: node.identifier,
      baseURL: node.baseURL,
      versions: versions.length > 0 ? versions : ["v2"],
      url: objectUrl(node.baseURL, pid),
    });
  };
  const { authoritativeMemberNode: authoritative, replicas } = object.sysmeta;
  const ownEntry = replicas.find((r) => r.replicaMemberNode === authoritative);
  if (
    authoritative &&
    authoritative !== ctx.config.nodeId &&
    (ownEntry?.replicationStatus ?? "completed") === "completed"
  ) {
    await add(authoritative);
  }
  for (const replica of replicas) {
    if (replica.replicationStatus === "completed") await add(replica.replicaMemberNode);
  }
  if (object.contentKey !== NO_BYTES) await add(ctx.config.nodeId);
  return locations;
}

/**
 * CNRead.synchronize: "Callable by any MN for new content and by the authoritative MN for updates."
 * The caller must be a registered, approved Member Node (by its node subjects), or a CN or administrator.
 */
export async function synchronize(
  ctx: NodeContext,
  call: CallInfo,
  pid: string | undefined,
): Promise<boolean> {
  const id = requireIdentifier(pid, "pid");
  const caller = (await approvedNodes(ctx)).find((n) => n.type === "mn" && actsAsNode(n, call));
  if (!caller && !isTrusted(call.session)) {
    throw new NotAuthorized(`${call.session.subject} is not the subject of a registered Member Node.`, {
      pid: id,
    });
  }
  const existing = await ctx.db.objects.get(id);
  if (caller && existing && existing.sysmeta.authoritativeMemberNode !== caller.identifier) {
    throw new NotAuthorized(
      `Only the authoritative Member Node (${existing.sysmeta.authoritativeMemberNode}) may synchronize updates of "${id}".`,
      { pid: id },
    );
  }
  const nodeId = caller?.identifier ?? ctx.config.nodeId;
  await ctx.db.cn.queueSync(id, nodeId, call.session.subject);
  // "Asynchronous: true means the task was queued": fetched from its Member Node ahead of scheduled harvests.
  await requestSynchronization(ctx.tasks, id, nodeId);
  return true;
}
