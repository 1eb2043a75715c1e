/**
 * CNAuthorization: setAccessPolicy and setRightsHolder. "VersionMismatch (409) is raised ... when the supplied
 * serialVersion differs from the current value; no change is made." Both change dateSysMetadataModified.
 * isAuthorized is the MN's (the same access function over the CN's authoritative copy).
 */

import { isAllowed } from "../../auth/access.ts";
import type { CallInfo, NodeContext } from "../../context/node-context.ts";
import { InvalidRequest, NotAuthorized } from "../../errors/exceptions.ts";
import type { AccessRule } from "../../types/sysmeta.ts";
import { findByPidOrSid } from "../shared/resolve.ts";
import { changeAtVersion } from "./core.ts";

/** The PID (a SID names its HEAD PID) whose policy the caller may change: changePermission is needed. */
async function changeablePid(ctx: NodeContext, call: CallInfo, id: string, what: string): Promise<string> {
  const object = await findByPidOrSid(ctx, id);
  if (!isAllowed(call.session, "changePermission", object.sysmeta)) {
    throw new NotAuthorized(
      `${call.session.subject} may not change the ${what} of "${object.sysmeta.identifier}"; it needs changePermission.`,
      { pid: id },
    );
  }
  return object.sysmeta.identifier;
}

export async function setAccessPolicy(
  ctx: NodeContext,
  call: CallInfo,
  id: string,
  accessPolicy: AccessRule[],
  serialVersion: number,
): Promise<boolean> {
  const pid = await changeablePid(ctx, call, id, "access policy");
  await changeAtVersion(ctx, pid, serialVersion, () => ({ accessPolicy }));
  return true;
}

export async function setRightsHolder(
  ctx: NodeContext,
  call: CallInfo,
  id: string,
  rightsHolder: string | undefined,
  serialVersion: number,
): Promise<string> {
  if (rightsHolder === undefined || rightsHolder.trim() === "") {
    throw new InvalidRequest("The userId part (the new rights holder) is missing.", { pid: id });
  }
  const pid = await changeablePid(ctx, call, id, "rights holder");
  await changeAtVersion(ctx, pid, serialVersion, () => ({ rightsHolder: rightsHolder.trim() }));
  return pid;
}
