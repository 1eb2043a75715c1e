/** MNCore: getCapabilities, getLogRecords, ping; and the CN callbacks synchronizationFailed, systemMetadataChanged. */
import { isTrusted, readFilter } from "../../auth/access.ts";
import type { LogEntry, LogFilter, Page } from "../../db/types.ts";
import { InvalidRequest, NotAuthorized } from "../../errors/exceptions.ts";
import type { Node } from "../../types/index.ts";
import type { CallInfo, NodeContext } from "../context.ts";
import { logEvent } from "./events.ts";

/** The services this node really serves, per API version. */
const MN_SERVICES = ["MNCore", "MNRead", "MNAuthorization", "MNStorage"] as const;

/** MNCore.getCapabilities: the Node document. */
export function capabilities(ctx: NodeContext): Node {
  const { config } = ctx;
  return {
    identifier: config.nodeId,
    name: config.nodeName,
    description: config.nodeDescription,
    baseURL: config.baseUrl,
    services: (["v1", "v2"] as const).flatMap((version) =>
      MN_SERVICES.map((name) => ({ name, version, available: true, restrictions: [] })),
    ),
    synchronization: { schedule: { ...config.syncSchedule } },
    subjects: [config.nodeSubject],
    contactSubjects: [config.contactSubject],
    replicate: false,
    synchronize: true,
    type: "mn",
    state: "up",
    properties: [],
  };
}

/**
 * MNCore.getLogRecords: "Only records the caller may read are returned. Access MUST allow CNs and MAY allow more
 * callers." Here: node administrators and CNs see every record; others are refused.
 */
export async function getLogRecords(
  ctx: NodeContext,
  call: CallInfo,
  filter: Omit<LogFilter, "readableBy">,
  start: number,
  count: number,
): Promise<Page<LogEntry>> {
  if (!isTrusted(call.session)) {
    throw new NotAuthorized(
      `${call.session.subject} may not read the event log; it is open to CNs and administrators.`,
    );
  }
  await ctx.db.events.flush();
  const readableBy = readFilter(call.session);
  return ctx.db.events.list({ ...filter, ...(readableBy ? { readableBy } : {}) }, start, count);
}

/** MNRead.synchronizationFailed: "Called by a CN; the MN records the problem". Recorded in the event log. */
export async function synchronizationFailed(
  ctx: NodeContext,
  call: CallInfo,
  failure: { pid?: string; description: string },
): Promise<void> {
  if (!isTrusted(call.session)) {
    throw new NotAuthorized(
      `synchronizationFailed is for Coordinating Nodes; ${call.session.subject} is not one.`,
    );
  }
  const pid = failure.pid ?? "";
  if (pid !== "" && (await ctx.db.objects.get(pid))) logEvent(ctx, call, pid, "synchronization_failed");
}

/**
 * MNRead.systemMetadataChanged: "The MN SHOULD schedule a refresh of the object from the authoritative CN copy.
 * Access MUST allow CNs." The object must be held here (InvalidRequest:1334 otherwise).
 */
export async function systemMetadataChanged(
  ctx: NodeContext,
  call: CallInfo,
  id: string,
  serialVersion: number,
  modified: Date,
): Promise<boolean> {
  if (!isTrusted(call.session)) {
    throw new NotAuthorized(
      `systemMetadataChanged is for Coordinating Nodes; ${call.session.subject} is not one.`,
    );
  }
  const object = (await ctx.db.objects.get(id)) ?? (await headObject(ctx, id));
  if (!object) throw new InvalidRequest(`No object "${id}" is held by this node.`, { pid: id });
  await ctx.db.sysmetaRefresh.request(object.sysmeta.identifier, serialVersion, modified);
  return true;
}

async function headObject(ctx: NodeContext, sid: string) {
  const head = await ctx.db.objects.headOfSeries(sid);
  return head ? ctx.db.objects.get(head) : undefined;
}
