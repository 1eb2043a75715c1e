/** MNCore: getCapabilities, getLogRecords, ping; and the CN callbacks synchronizationFailed, systemMetadataChanged. */
import { isTrusted, mayReadLog, readFilter } from "../../auth/access.ts";
import { memberNodeRestrictions } from "../../auth/restrictions.ts";
import type { CallInfo, NodeContext } from "../../context/node-context.ts";
import type { LogEntry, LogFilter, Page } from "../../db/types.ts";
import { InvalidRequest, NotAuthorized } from "../../errors/exceptions.ts";
import { REFRESH_SYSMETA, type RefreshPayload } from "../../tasks/kinds.ts";
import type { Node } from "../../types/index.ts";
import type { NodeReplicationPolicy } from "../../types/node.ts";
import { logEvent } from "../shared/events.ts";

/** The services this node really serves, per API version. */
const MN_SERVICES = [
  "MNCore",
  "MNRead",
  "MNAuthorization",
  "MNStorage",
  "MNReplication",
  "MNView",
  "MNPackage",
  "MNQuery",
] as const;

/**
 * MNCore.getCapabilities: the Node document. Each service lists its method restrictions ("restriction: attribute
 * methodName; child subject (who may call that method)"), from the same settings the access checks read.
 */
export function capabilities(ctx: NodeContext): Node {
  const { config } = ctx;
  const restrictions = memberNodeRestrictions(config);
  return {
    identifier: config.nodeId,
    name: config.nodeName,
    description: config.nodeDescription,
    baseURL: config.baseUrl,
    services: (["v1", "v2"] as const).flatMap((version) =>
      MN_SERVICES.map((name) => ({ name, version, available: true, restrictions: restrictions[name] ?? [] })),
    ),
    synchronization: { schedule: { ...config.syncSchedule } },
    ...replicationPolicyOf(config),
    subjects: [config.nodeSubject],
    contactSubjects: [config.contactSubject],
    replicate: config.replicate,
    synchronize: true,
    type: "mn",
    state: "up",
    properties: [],
  };
}

/**
 * Node.nodeReplicationPolicy: "constraints on object size, total objects, source nodes, and object format types"
 * (types schema), from the replication settings; left out when the node sets none.
 */
function replicationPolicyOf(config: NodeContext["config"]): Pick<Node, "nodeReplicationPolicy"> {
  const policy: NodeReplicationPolicy = {
    ...(config.replicationMaxObjectSize !== undefined
      ? { maxObjectSize: config.replicationMaxObjectSize }
      : {}),
    ...(config.replicationSpaceAllocated !== undefined
      ? { spaceAllocated: config.replicationSpaceAllocated }
      : {}),
    allowedNodes: [...config.replicationAllowedNodes],
    allowedObjectFormats: [...config.replicationAllowedFormats],
  };
  const empty =
    policy.maxObjectSize === undefined &&
    policy.spaceAllocated === undefined &&
    policy.allowedNodes.length === 0 &&
    policy.allowedObjectFormats.length === 0;
  return empty ? {} : { nodeReplicationPolicy: policy };
}

/**
 * MNCore.getLogRecords: "Only records the caller may read are returned. Access MUST allow CNs and MAY allow more
 * callers." Node administrators and CNs see every record; with logReaders "readers" anyone may ask and sees the
 * records of objects they can read; otherwise others are refused.
 */
export async function getLogRecords(
  ctx: NodeContext,
  call: CallInfo,
  filter: Omit<LogFilter, "readableBy">,
  start: number,
  count: number,
): Promise<Page<LogEntry>> {
  if (!mayReadLog(call.session, ctx.config.logReaders)) {
    throw new NotAuthorized(
      `${call.session.subject} may not read the event log; it is open to CNs and administrators.`,
    );
  }
  return readLog(ctx, call, filter, start, count);
}

/** The event log as `call` may read it: every record for CNs and administrators, else those of readable objects. */
export async function readLog(
  ctx: NodeContext,
  call: CallInfo,
  filter: Omit<LogFilter, "readableBy">,
  start: number,
  count: number,
): Promise<Page<LogEntry>> {
  await ctx.db.events.flush();
  const readableBy = readFilter(call.session);
  return ctx.db.events.list({ ...filter, ...(readableBy ? { readableBy } : {}) }, start, count);
}

/** "Access MUST allow CNs": the CN callbacks are refused to anyone else, before their body is read. */
export function requireCoordinatingNode(call: CallInfo, operation: string): void {
  if (!isTrusted(call.session)) {
    throw new NotAuthorized(`${operation} is for Coordinating Nodes; ${call.session.subject} is not one.`);
  }
}

/** MNRead.synchronizationFailed: "Called by a CN; the MN records the problem". Recorded in the event log. */
export async function synchronizationFailed(
  ctx: NodeContext,
  call: CallInfo,
  failure: { pid?: string; description: string },
): Promise<void> {
  requireCoordinatingNode(call, "synchronizationFailed");
  const pid = failure.pid ?? "";
  if (pid !== "" && (await ctx.db.objects.get(pid))) logEvent(ctx, call, pid, "synchronization_failed");
}

/**
 * MNRead.systemMetadataChanged: "The MN SHOULD schedule a refresh of the object from the authoritative CN copy.
 * Access MUST allow CNs." The object must be held here (InvalidRequest:1334 otherwise). The refresh is a task
 * (src/federation/propagation); a serialVersion no newer than the one held here has nothing to bring.
 */
export async function systemMetadataChanged(
  ctx: NodeContext,
  call: CallInfo,
  id: string,
  serialVersion: number,
  _modified: Date,
): Promise<boolean> {
  requireCoordinatingNode(call, "systemMetadataChanged");
  const object = (await ctx.db.objects.get(id)) ?? (await headObject(ctx, id));
  if (!object) throw new InvalidRequest(`No object "${id}" is held by this node.`, { pid: id });
  const pid = object.sysmeta.identifier;
  if (serialVersion > (object.sysmeta.serialVersion ?? 0)) {
    await ctx.tasks.enqueue(REFRESH_SYSMETA, pid, { pid } satisfies RefreshPayload);
  }
  return true;
}

async function headObject(ctx: NodeContext, sid: string) {
  const head = await ctx.db.objects.headOfSeries(sid);
  return head ? ctx.db.objects.get(head) : undefined;
}
