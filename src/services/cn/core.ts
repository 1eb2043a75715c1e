/**
 * CNCore writes: create, registerSystemMetadata, setObsoletedBy, updateSystemMetadata, archive, delete.
 * The CN holds the authoritative system metadata in the same objects table an MN uses; an object registered by
 * system metadata alone has no bytes here (content key "").
 */

import { isTrusted } from "../../auth/access.ts";
import type { CallInfo, NodeContext } from "../../context/node-context.ts";
import { DuplicateKeyError, StaleVersionError } from "../../db/errors.ts";
import {
  IdentifierNotUnique,
  InvalidRequest,
  InvalidSystemMetadata,
  NotAuthorized,
  VersionMismatch,
} from "../../errors/exceptions.ts";
import { checkDigests, ingest, removeObject } from "../../objects/ingest.ts";
import { writeObjects } from "../../objects/write.ts";
import { algorithmKey } from "../../store/index.ts";
import type { StagedObject } from "../../store/types.ts";
import type { StoredObject } from "../../types/stored-object.ts";
import type { SystemMetadata } from "../../types/sysmeta.ts";
import { logEntry, logEvent } from "../shared/events.ts";
import { findByPid, findByPidOrSid, notHeld } from "../shared/resolve.ts";
import { asSeriesRefusal, checkIncoming, checkSeriesId, nextRevision } from "../shared/sysmeta-rules.ts";
import { checkReservation, isIdentifierTaken } from "./reservations.ts";

/** Content key of an object the CN knows by system metadata only. */
export const NO_BYTES = "";

/** "For administrators only" / "Use restricted to CNs": node administrators and Coordinating Nodes. */
export function requireTrusted(call: CallInfo, operation: string): void {
  if (!isTrusted(call.session)) {
    throw new NotAuthorized(
      `${operation} is for Coordinating Nodes and administrators; ${call.session.subject} is neither.`,
    );
  }
}

/** Fields the CN sets on system metadata it takes in; origin and authoritative MN default to this CN. */
function accepted(ctx: NodeContext, sysmeta: SystemMetadata, submitter: string, now: Date): SystemMetadata {
  return {
    ...sysmeta,
    serialVersion: 1,
    submitter: sysmeta.submitter ?? submitter,
    archived: sysmeta.archived ?? false,
    dateUploaded: sysmeta.dateUploaded ?? now,
    dateSysMetadataModified: now,
    originMemberNode: sysmeta.originMemberNode ?? ctx.config.nodeId,
    authoritativeMemberNode: sysmeta.authoritativeMemberNode ?? ctx.config.nodeId,
    obsoletedBy: undefined,
  };
}

/**
 * The create rules. An identifier in use is IdentifierNotUnique for create; registerSystemMetadata lists no
 * IdentifierNotUnique, so it reports InvalidSystemMetadata (`Taken`).
 */
async function checkNew(
  ctx: NodeContext,
  call: CallInfo,
  pid: string,
  sysmeta: SystemMetadata,
  Taken: typeof IdentifierNotUnique = IdentifierNotUnique,
): Promise<void> {
  checkIncoming(ctx, pid, sysmeta);
  if (await isIdentifierTaken(ctx, pid)) {
    throw new Taken(`The identifier "${pid}" is already in use.`, { pid });
  }
  await checkReservation(ctx, call, pid);
  await checkSeriesId(ctx.db.objects, sysmeta);
}

/** CNCore.create (private, administrators): the object's bytes and system metadata. */
export async function create(
  ctx: NodeContext,
  call: CallInfo,
  pid: string,
  sysmeta: SystemMetadata,
  staged: StagedObject,
): Promise<string> {
  requireTrusted(call, "CNCore.create");
  await checkNew(ctx, call, pid, sysmeta);
  checkDigests(sysmeta, staged.digests);
  const stored = accepted(ctx, sysmeta, call.session.subject, new Date());
  await ingest(ctx, "client", staged, async (tx, contentKey) => {
    await tx.objects.insert({ sysmeta: stored, contentKey, digests: staged.digests, isReplica: false });
    await tx.events.add(logEntry(ctx, call, pid, "create"));
  });
  await ctx.db.cn.releaseReservation(pid);
  return pid;
}

/** CNCore.registerSystemMetadata: system metadata of an object whose bytes live on Member Nodes. */
export async function registerSystemMetadata(
  ctx: NodeContext,
  call: CallInfo,
  pid: string,
  sysmeta: SystemMetadata,
): Promise<string> {
  requireTrusted(call, "CNCore.registerSystemMetadata");
  await checkNew(ctx, call, pid, sysmeta, InvalidSystemMetadata);
  const stored = accepted(ctx, sysmeta, call.session.subject, new Date());
  const digests = { size: sysmeta.size, md5: "", sha1: "", sha256: "" };
  try {
    await writeObjects(ctx, "client", async (tx) => {
      await tx.objects.insert({ sysmeta: stored, contentKey: NO_BYTES, digests, isReplica: false });
      tx.replan(pid);
    });
  } catch (error) {
    if (error instanceof DuplicateKeyError) {
      throw new InvalidSystemMetadata(`The identifier "${pid}" is already registered.`, { pid });
    }
    throw asSeriesRefusal(error);
  }
  await ctx.db.cn.releaseReservation(pid);
  return pid;
}

/** VersionMismatch: "the supplied serialVersion differs from the current value; no change is made." */
export function checkSerialVersion(current: SystemMetadata, serialVersion: number): void {
  if ((current.serialVersion ?? 1) !== serialVersion) {
    throw new VersionMismatch(
      `serialVersion ${serialVersion} is not the current one (${current.serialVersion ?? 1}) of ` +
        `"${current.identifier}"; read the system metadata again.`,
      { pid: current.identifier },
    );
  }
}

/**
 * Apply `change` to the current system metadata of `pid` if its serialVersion is still `serialVersion`. The write
 * itself is conditional on that serialVersion, so of concurrent calls with the same serialVersion one wins.
 * Without a serialVersion the change applies to whatever is current: the write is conditional on the version
 * read, and a concurrent write (a replica status, say) makes it read again rather than undo that write.
 * The write core indexes the change and announces it to the nodes holding the object; with `replan`, the
 * object's replicas are planned again.
 */
export async function changeAtVersion(
  ctx: NodeContext,
  pid: string,
  serialVersion: number | undefined,
  change: (current: SystemMetadata) => Partial<SystemMetadata>,
  replan = false,
): Promise<SystemMetadata> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await writeObjects(ctx, "client", async (tx) => {
        const current = await tx.objects.get(pid);
        if (!current) throw notHeld(pid);
        if (serialVersion !== undefined) checkSerialVersion(current.sysmeta, serialVersion);
        const next = nextRevision(current.sysmeta, new Date(), change(current.sysmeta));
        await tx.objects.replaceSysmeta(next, current.sysmeta.serialVersion);
        if (replan) tx.replan(pid);
        return next;
      });
    } catch (error) {
      if (!(error instanceof StaleVersionError)) throw error;
      if (serialVersion === undefined && attempt < 50) continue;
      throw new VersionMismatch(
        `serialVersion ${serialVersion ?? "(current)"} of "${pid}" was changed by a concurrent call; read the ` +
          "system metadata again.",
        { pid },
      );
    }
  }
}

/** CNCore.setObsoletedBy (private): "On serialVersion mismatch nothing changes and VersionMismatch is raised." */
export async function setObsoletedBy(
  ctx: NodeContext,
  call: CallInfo,
  pid: string,
  obsoletedBy: string,
  serialVersion: number,
): Promise<boolean> {
  requireTrusted(call, "CNCore.setObsoletedBy");
  await findByPid(ctx, pid);
  if (obsoletedBy === pid) throw new InvalidRequest("An object cannot obsolete itself.", { pid });
  await changeAtVersion(ctx, pid, serialVersion, (current) => {
    if (current.obsoletedBy !== undefined && current.obsoletedBy !== obsoletedBy) {
      throw new InvalidRequest(`"${pid}" is already obsoleted by "${current.obsoletedBy}".`, { pid });
    }
    return { obsoletedBy };
  });
  return true;
}

/**
 * CNCore.updateSystemMetadata (v2): "The serialVersion and replica list in the new document are ignored. Use
 * restricted to CNs." Identifier, size, checksum, submitter, dateUploaded and originMemberNode cannot change.
 */
export async function updateSystemMetadata(
  ctx: NodeContext,
  call: CallInfo,
  pid: string,
  incoming: SystemMetadata,
): Promise<boolean> {
  requireTrusted(call, "CNCore.updateSystemMetadata");
  if (incoming.identifier !== pid) {
    throw new InvalidRequest(
      `The system metadata identifier "${incoming.identifier}" differs from "${pid}".`,
      {
        pid,
      },
    );
  }
  await findByPid(ctx, pid);
  // Replanned: the replication policy may have changed.
  const changing = changeAtVersion(
    ctx,
    pid,
    undefined,
    (current) => {
      const fixed = ["size", "submitter", "originMemberNode"] as const;
      for (const field of fixed) {
        if (incoming[field] !== undefined && incoming[field] !== current[field]) {
          throw new InvalidRequest(`${field} cannot change (${current[field]} -> ${incoming[field]}).`, {
            pid,
          });
        }
      }
      if (
        algorithmKey(incoming.checksum.algorithm) !== algorithmKey(current.checksum.algorithm) ||
        incoming.checksum.value.toLowerCase() !== current.checksum.value.toLowerCase()
      ) {
        throw new InvalidRequest("The checksum cannot change.", { pid });
      }
      if (current.archived && incoming.archived === false) {
        throw new InvalidRequest("An archived object cannot be unarchived.", { pid });
      }
      if (!ctx.formats.get(incoming.formatId)) {
        throw new InvalidSystemMetadata(
          `formatId "${incoming.formatId}" is not a registered object format.`,
          {
            pid,
          },
        );
      }
      const { serialVersion: _ignoredVersion, replicas: _ignoredReplicas, ...rest } = incoming;
      return {
        ...rest,
        identifier: pid,
        submitter: current.submitter,
        dateUploaded: current.dateUploaded,
        originMemberNode: current.originMemberNode,
        archived: current.archived || incoming.archived === true,
        replicas: current.replicas,
      };
    },
    true,
  );
  // A seriesId set here joins its series by the rules of create and update (enforced in the write).
  await changing.catch((error: unknown) => {
    throw asSeriesRefusal(error);
  });
  return true;
}

/** CNCore.archive (private): "Sets archived=true". */
export async function archive(ctx: NodeContext, call: CallInfo, id: string): Promise<string> {
  requireTrusted(call, "CNCore.archive");
  const object = await findByPidOrSid(ctx, id);
  const pid = object.sysmeta.identifier;
  if (!object.sysmeta.archived) {
    await changeAtVersion(ctx, pid, undefined, () => ({ archived: true }));
  }
  return pid;
}

/** CNCore.delete (private): "the PID or SID stays marked in use and the object is not resolvable." */
export async function remove(ctx: NodeContext, call: CallInfo, id: string): Promise<string> {
  requireTrusted(call, "CNCore.delete");
  const object: StoredObject = await findByPidOrSid(ctx, id);
  const { identifier, seriesId } = object.sysmeta;
  await ctx.db.cn.retire(identifier);
  if (seriesId !== undefined) await ctx.db.cn.retire(seriesId);
  if (object.contentKey === NO_BYTES)
    await writeObjects(ctx, "client", (tx) => tx.objects.remove(identifier));
  else await removeObject(ctx, "client", object);
  logEvent(ctx, call, identifier, "delete");
  return identifier;
}
