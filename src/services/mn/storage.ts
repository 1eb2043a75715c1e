/**
 * MNStorage: create, update, archive, delete, generateIdentifier. updateSystemMetadata is in sysmeta-update.ts,
 * publish in publish.ts.
 */
import { randomUUID } from "node:crypto";
import { isAllowed, isTrusted, maySubmit } from "../../auth/access.ts";
import type { CallInfo, NodeContext } from "../../context/node-context.ts";
import { StaleVersionError } from "../../db/errors.ts";
import { mintDoi } from "../../doi/identifiers.ts";
import {
  IdentifierNotUnique,
  InvalidRequest,
  InvalidSystemMetadata,
  NotAuthorized,
} from "../../errors/exceptions.ts";
import { checkDigests, ingest, removeObject } from "../../objects/ingest.ts";
import { writeObjects } from "../../objects/write.ts";
import { algorithmKey, recordedDigest } from "../../store/index.ts";
import type { StagedObject } from "../../store/types.ts";
import type { SystemMetadata } from "../../types/sysmeta.ts";
import { checkReservation, requireRoomToReserve } from "../cn/reservations.ts";
import { logEntry } from "../shared/events.ts";
import { findByPidOrSid } from "../shared/resolve.ts";
import {
  checkIncoming,
  checkSeriesId,
  laterThan,
  nextRevision,
  withNodeFields,
} from "../shared/sysmeta-rules.ts";
import { requireMembersHeld } from "./package-members.ts";

/** "The caller needs write or create permission": the submitter allow-list. */
export function requireSubmitter(ctx: NodeContext, call: CallInfo, what: string): void {
  if (!maySubmit(call.session, ctx.config.submitters)) {
    throw new NotAuthorized(`${call.session.subject} is not allowed to ${what} objects on this node.`);
  }
}

/**
 * The bytes are hashed as they arrive with SHA-256 and the sysmeta's algorithm when it was known then (the sysmeta
 * part came first, a resumable upload's `checksumAlgorithm` named it, or the client's last declared algorithm was
 * right); without any, an inline upload computes MD5, SHA-1 and SHA-256. An algorithm the sysmeta names that none of these covered is computed now over the
 * staged file (a second read) before the checksum is compared.
 */
async function ensureDigest(staged: StagedObject, algorithm: string): Promise<void> {
  const key = algorithmKey(algorithm);
  if (!key || recordedDigest(staged.digests, key) !== undefined) return;
  await staged.addDigest(algorithm);
}

/**
 * MNStorage.create: "The pid must not exist or must be reserved by the caller." The staged bytes are checked
 * against the declared size and checksum before anything becomes visible.
 */
export async function create(
  ctx: NodeContext,
  call: CallInfo,
  pid: string,
  sysmeta: SystemMetadata,
  staged: StagedObject,
): Promise<string> {
  await ensureDigest(staged, sysmeta.checksum.algorithm);
  requireSubmitter(ctx, call, "create");
  checkIncoming(ctx, pid, sysmeta);
  if (sysmeta.obsoletes !== undefined) {
    throw new InvalidSystemMetadata(
      "obsoletes must not be set on create; use MNStorage.update for a new version.",
      {
        pid,
      },
    );
  }
  if (await ctx.db.objects.isIdentifierInUse(pid)) {
    throw new IdentifierNotUnique(`The identifier "${pid}" is already in use on this node.`, { pid });
  }
  await checkReservedIds(ctx, call, pid, sysmeta.seriesId);
  await checkSeriesId(ctx.db.objects, sysmeta);
  checkDigests(sysmeta, staged.digests);
  await requireMembersHeld(ctx, sysmeta, staged);
  const stored = withNodeFields(ctx, sysmeta, call.session.subject, new Date());
  // The write core indexes it and (with a CN) queues the notice that the CN synchronizes it.
  await ingest(ctx, "client", staged, async (tx, contentKey) => {
    await tx.objects.insert({ sysmeta: stored, contentKey, digests: staged.digests, isReplica: false });
    await tx.events.add(logEntry(ctx, call, pid, "create"));
  });
  return pid;
}

/**
 * MNStorage.update: "sysmeta.obsoletes equals pid; pid has no obsoletedBy; new sysmeta has no obsoletedBy"
 * and "MUST fail with InvalidRequest when pid is archived". The old object gets obsoletedBy=newPid and both
 * get a new dateSysMetadataModified, in one transaction.
 */
export async function update(
  ctx: NodeContext,
  call: CallInfo,
  pid: string,
  newPid: string,
  sysmeta: SystemMetadata,
  staged: StagedObject,
): Promise<string> {
  await ensureDigest(staged, sysmeta.checksum.algorithm);
  requireSubmitter(ctx, call, "update");
  const old = await findByPidOrSid(ctx, pid);
  const oldPid = old.sysmeta.identifier;
  if (!isAllowed(call.session, "write", old.sysmeta)) {
    throw new NotAuthorized(`${call.session.subject} may not update "${oldPid}".`, { pid });
  }
  if (old.sysmeta.archived) {
    throw new InvalidRequest(`"${oldPid}" is archived; archived objects cannot be updated.`, { pid });
  }
  if (old.isReplica) {
    throw new InvalidRequest(
      `"${oldPid}" is a replica here; new versions go to its authoritative Member Node ` +
        `${old.sysmeta.authoritativeMemberNode ?? "(unknown)"}.`,
      { pid },
    );
  }
  checkIncoming(ctx, newPid, sysmeta);
  await checkReservedIds(ctx, call, newPid, sysmeta.seriesId);
  if (sysmeta.obsoletes !== oldPid) {
    throw new InvalidSystemMetadata(
      `The new system metadata must have obsoletes="${oldPid}" (it has ${sysmeta.obsoletes ? `"${sysmeta.obsoletes}"` : "none"}).`,
      { pid: newPid },
    );
  }
  if (old.sysmeta.obsoletedBy !== undefined) {
    throw new InvalidSystemMetadata(
      `"${oldPid}" is already obsoleted by "${old.sysmeta.obsoletedBy}"; a version chain cannot branch.`,
      { pid },
    );
  }
  if (await ctx.db.objects.isIdentifierInUse(newPid)) {
    throw new IdentifierNotUnique(`The new identifier "${newPid}" is already in use on this node.`, {
      pid: newPid,
    });
  }
  await checkSeriesId(ctx.db.objects, sysmeta, old.sysmeta);
  checkDigests(sysmeta, staged.digests);
  await requireMembersHeld(ctx, sysmeta, staged);
  const now = new Date();
  const stored = withNodeFields(
    ctx,
    sysmeta,
    call.session.subject,
    laterThan(old.sysmeta.dateSysMetadataModified, now),
  );
  const concurrent = () =>
    new InvalidSystemMetadata(`"${oldPid}" was obsoleted by a concurrent update.`, { pid });
  await ingest(ctx, "client", staged, async (tx, contentKey) => {
    const current = await tx.objects.get(oldPid);
    if (!current || current.sysmeta.obsoletedBy !== undefined) throw concurrent();
    // The old object's row first, then the new one's identifiers: the order updateSystemMetadata takes them in
    // (the object's row, then its SID's). In the opposite order, an update introducing SID S and an
    // updateSystemMetadata adding S to the old object deadlock on PostgreSQL (each holding the row the other
    // waits for). Conditional on the serialVersion just read: of two updates racing to obsolete the same object,
    // exactly one commits ("no branching"); the other rolls back whole, its new object included.
    const obsoleted = nextRevision(current.sysmeta, now, { obsoletedBy: newPid });
    await tx.objects.replaceSysmeta(obsoleted, current.sysmeta.serialVersion).catch((error: unknown) => {
      throw error instanceof StaleVersionError ? concurrent() : error;
    });
    await tx.objects.insert({ sysmeta: stored, contentKey, digests: staged.digests, isReplica: false });
    await tx.events.add(logEntry(ctx, call, newPid, "update"));
  });
  return newPid;
}

/** Archive `pid` unless it already is; a concurrent change of its system metadata makes it read and try again. */
async function setArchived(ctx: NodeContext, pid: string): Promise<void> {
  for (;;) {
    try {
      await writeObjects(ctx, "client", async (tx) => {
        const current = await tx.objects.get(pid);
        if (current && !current.sysmeta.archived) {
          const archived = nextRevision(current.sysmeta, new Date(), { archived: true });
          await tx.objects.replaceSysmeta(archived, current.sysmeta.serialVersion);
        }
      });
      return;
    } catch (error) {
      if (!(error instanceof StaleVersionError)) throw error;
    }
  }
}

/** MNStorage.archive: "Sets archived=true. The MN MUST check authorization." The bytes are kept. */
export async function archive(ctx: NodeContext, call: CallInfo, id: string): Promise<string> {
  const object = await findByPidOrSid(ctx, id);
  const pid = object.sysmeta.identifier;
  if (!isAllowed(call.session, "changePermission", object.sysmeta)) {
    throw new NotAuthorized(`${call.session.subject} may not archive "${pid}"; it needs changePermission.`, {
      pid: id,
    });
  }
  if (!object.sysmeta.archived) {
    await setArchived(ctx, pid);
  }
  return pid;
}

/** MNStorage.delete: "caller authorized (typically a CN)": node administrators and Coordinating Nodes. */
export async function remove(ctx: NodeContext, call: CallInfo, id: string): Promise<string> {
  if (!isTrusted(call.session)) {
    throw new NotAuthorized(
      `${call.session.subject} may not delete objects; only node administrators and Coordinating Nodes may. ` +
        "Use MNStorage.archive to withdraw an object.",
      { pid: id },
    );
  }
  const object = await findByPidOrSid(ctx, id);
  await removeObject(ctx, "client", object, logEntry(ctx, call, object.sysmeta.identifier, "delete"));
  return object.sysmeta.identifier;
}

/**
 * MNStorage.generateIdentifier: UUID (fragment ignored), and DOI when the node has a DOI prefix: a new DOI under
 * it, reserved for the caller here; DataCite hears of it when an object takes it (docs/decisions.md, "DOIs").
 */
export async function generateIdentifier(
  ctx: NodeContext,
  call: CallInfo,
  scheme: string | undefined,
): Promise<string> {
  requireSubmitter(ctx, call, "generate identifiers for");
  if (scheme === undefined || scheme.trim() === "")
    throw new InvalidRequest("The scheme parameter is missing.");
  const wanted = scheme.trim().toUpperCase();
  if (wanted === "DOI" && ctx.config.doiPrefix) return reserveNewDoi(ctx, call);
  if (wanted !== "UUID") {
    const supported = ctx.config.doiPrefix ? "UUID and DOI" : "UUID";
    throw new InvalidRequest(
      `Identifier scheme "${scheme}" is not supported; the supported schemes are ${supported}.`,
    );
  }
  return `urn:uuid:${randomUUID()}`;
}

async function reserveNewDoi(ctx: NodeContext, call: CallInfo): Promise<string> {
  await requireRoomToReserve(ctx, call);
  for (;;) {
    const doi = mintDoi(ctx.config);
    if (
      !(await ctx.db.objects.isIdentifierInUse(doi)) &&
      (await ctx.db.cn.reserve(doi, call.session.subject))
    )
      return doi;
  }
}

/**
 * The new identifiers of a create or update, its pid and a seriesId not yet in use, are the reserving
 * subject's to use: one of the node's DOIs generated for someone else, or an identifier reserved at the lone
 * node's `cn/v2/reserve` ("later create/update with the id must come from the reserving principal").
 */
async function checkReservedIds(
  ctx: NodeContext,
  call: CallInfo,
  pid: string,
  seriesId: string | undefined,
): Promise<void> {
  const reserved = await ctx.db.cn.reservedAmong(seriesId === undefined ? [pid] : [pid, seriesId]);
  if (reserved.has(pid)) await checkReservation(ctx, call, pid);
  if (
    seriesId !== undefined &&
    reserved.has(seriesId) &&
    !(await ctx.db.objects.isIdentifierInUse(seriesId))
  ) {
    await checkReservation(ctx, call, seriesId);
  }
}
