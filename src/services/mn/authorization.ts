/** MNAuthorization.isAuthorized: "200 means allowed ... When not allowed, NotAuthorized MUST be raised." */
import { isAllowed } from "../../auth/access.ts";
import type { CallInfo, NodeContext } from "../../context/node-context.ts";
import { InvalidRequest, NotAuthorized } from "../../errors/exceptions.ts";
import { PERMISSIONS, type Permission } from "../../types/sysmeta.ts";
import { findByPidOrSid } from "../shared/resolve.ts";

export async function isAuthorized(
  ctx: NodeContext,
  call: CallInfo,
  id: string,
  action: string | undefined,
): Promise<boolean> {
  if (action === undefined || !(PERMISSIONS as readonly string[]).includes(action)) {
    throw new InvalidRequest(
      `action must be one of ${PERMISSIONS.join(", ")} (got ${action ?? "nothing"}).`,
      {
        pid: id,
      },
    );
  }
  const object = await findByPidOrSid(ctx, id);
  if (!isAllowed(call.session, action as Permission, object.sysmeta)) {
    throw new NotAuthorized(
      `${call.session.subject} does not hold ${action} on "${object.sysmeta.identifier}".`,
      {
        pid: id,
      },
    );
  }
  return true;
}
