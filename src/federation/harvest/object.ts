/**
 * Synchronizing one object from a Member Node onto the Coordinating Node: its system metadata (validated), and
 * for METADATA and RESOURCE objects its bytes, streamed into the CN's store and checked against the declared
 * size and checksum. "DATA stays on the MN; the CN keeps its sysmeta and checksum" (content key NO_BYTES).
 * An object the CN holds is updated in the fields the Member Node may change (rules.ts), never inserted twice.
 */
import type { Readable } from "node:stream";
import type { NodeContext } from "../../context/node-context.ts";
import { DuplicateKeyError } from "../../db/errors.ts";
import type { Repositories } from "../../db/types.ts";
import { D1Error, InvalidSystemMetadata } from "../../errors/exceptions.ts";
import { bytesWanted } from "../../objects/changes.ts";
import { stageHolding } from "../../objects/held-bytes.ts";
import { checkDigests, ingest } from "../../objects/ingest.ts";
import { type ObjectTransaction, writeObjects } from "../../objects/write.ts";
import { NO_BYTES } from "../../services/cn/core.ts";
import { asSeriesRefusal, nextRevision } from "../../services/shared/sysmeta-rules.ts";
import { algorithmKey } from "../../store/index.ts";
import type { ObjectInfo } from "../../types/index.ts";
import type { StoredObject } from "../../types/stored-object.ts";
import type { Checksum, SystemMetadata } from "../../types/sysmeta.ts";
import { checksumVerdict } from "../replication/audit.ts";
import { replanIfWanted } from "./after-sync.ts";
import { type FailureReceiver, reportSyncFailure } from "./report.ts";
import { authoritativeChanges, checkHarvested, checkSameBytes, withReplica } from "./rules.ts";

/** The calls the synchronizer makes on the Member Node. */
export interface SourceNode extends FailureReceiver {
  getSystemMetadata(pid: string): Promise<SystemMetadata>;
  /** MNRead.getChecksum: the proof a node holding a replica gives (see recordReplica). */
  getChecksum(pid: string, algorithm: string): Promise<Checksum>;
  /** The bytes, failing past `declaredSize` (see D1Client.get). */
  get(pid: string, declaredSize: number): Promise<Readable>;
}

export type SyncOutcome = "created" | "updated" | "unchanged" | "failed";

/**
 * Whether the listing shows nothing new: the CN's record is at least as recent, and the node is the authoritative
 * one or already listed as a replica holder.
 */
export function isUpToDate(object: StoredObject | undefined, nodeId: string, info: ObjectInfo): boolean {
  if (!object) return false;
  const { sysmeta } = object;
  if (sysmeta.authoritativeMemberNode !== nodeId) {
    return sysmeta.replicas.some((r) => r.replicaMemberNode === nodeId);
  }
  return (sysmeta.dateSysMetadataModified?.getTime() ?? 0) >= info.dateSysMetadataModified.getTime();
}

/**
 * Synchronizes `pid` from `nodeId`. A problem with the object (invalid system metadata, checksum mismatch, an
 * object the node will not serve) is reported to the node and gives "failed"; a node that cannot be reached
 * (ServiceFailure) or a local failure throws, so that the caller tries again later.
 */
export async function synchronizeObject(
  ctx: NodeContext,
  nodeId: string,
  source: SourceNode,
  pid: string,
  info?: ObjectInfo,
  fetched?: SystemMetadata,
): Promise<SyncOutcome> {
  const existing = await ctx.db.objects.get(pid);
  if (info && isUpToDate(existing, nodeId, info)) return "unchanged";
  try {
    const sysmeta = fetched ?? (await source.getSystemMetadata(pid));
    checkHarvested(ctx.formats, pid, sysmeta);
    if (!existing) {
      await checkOwnObject(ctx, nodeId, sysmeta);
      return await createFromNode(ctx, nodeId, source, sysmeta);
    }
    if (existing.sysmeta.authoritativeMemberNode === nodeId) {
      return await updateFromAuthoritative(ctx, existing, sysmeta);
    }
    return await recordReplica(ctx, nodeId, source, existing, sysmeta);
  } catch (error) {
    if (!(error instanceof D1Error) || error.exception === "ServiceFailure") throw error;
    await reportSyncFailure(ctx, source, pid, `${error.exception}: ${error.description}`);
    return "failed";
  }
}

/**
 * A node speaks for its own objects only: a new object's authoritativeMemberNode, when given, is the node it is
 * harvested from (a node listing another's object holds a replica, which the CN records once it knows the object
 * from its authoritative node), and its originMemberNode names no other node registered here.
 */
async function checkOwnObject(ctx: NodeContext, nodeId: string, sysmeta: SystemMetadata): Promise<void> {
  const pid = sysmeta.identifier;
  const authoritative = sysmeta.authoritativeMemberNode;
  if (authoritative !== undefined && authoritative !== nodeId) {
    throw new InvalidSystemMetadata(
      `${nodeId} lists "${pid}" with authoritativeMemberNode ${authoritative}: a node registers only its own ` +
        "objects; a copy of another node's object is recorded as a replica once the CN has it from that node.",
      { pid },
    );
  }
  const origin = sysmeta.originMemberNode;
  if (
    origin !== undefined &&
    origin !== nodeId &&
    (origin === ctx.config.nodeId || (await ctx.db.cn.node(origin)))
  ) {
    throw new InvalidSystemMetadata(
      `${nodeId} lists "${pid}" with originMemberNode ${origin}, another node of this federation: a node may not ` +
        "say that another uploaded an object it registers.",
      { pid },
    );
  }
}

/** "A seriesId can not appear in any other revision chain": a SID in use must belong to a linked version. */
async function checkSeries(ctx: NodeContext, sysmeta: SystemMetadata): Promise<void> {
  const sid = sysmeta.seriesId;
  if (sid === undefined || !(await ctx.db.objects.isIdentifierInUse(sid))) return;
  const members = await ctx.db.objects.getMany(await ctx.db.objects.pidsOfSeries(sid));
  const pid = sysmeta.identifier;
  const linked = [...members.values()].some(
    ({ sysmeta: m }) =>
      m.identifier === sysmeta.obsoletes ||
      m.identifier === sysmeta.obsoletedBy ||
      m.obsoletes === pid ||
      m.obsoletedBy === pid,
  );
  if (!linked) {
    throw new InvalidSystemMetadata(
      `seriesId "${sid}" is already used by another object or revision chain on the Coordinating Node.`,
      { pid },
    );
  }
}

/** Inside the new object's transaction: the version it obsoletes gets obsoletedBy (no branching). */
async function linkObsoleted(
  tx: Repositories,
  sysmeta: SystemMetadata,
  now: Date,
): Promise<string | undefined> {
  const oldPid = sysmeta.obsoletes;
  if (oldPid === undefined) return undefined;
  const old = await tx.objects.get(oldPid);
  if (!old) return undefined; // harvested later, with the obsoletedBy its node set
  if (old.sysmeta.obsoletedBy === sysmeta.identifier) return undefined;
  if (old.sysmeta.obsoletedBy !== undefined) {
    throw new InvalidSystemMetadata(
      `"${oldPid}" is already obsoleted by "${old.sysmeta.obsoletedBy}"; a version chain cannot branch.`,
      { pid: sysmeta.identifier },
    );
  }
  await tx.objects.replaceSysmeta(
    nextRevision(old.sysmeta, now, { obsoletedBy: sysmeta.identifier }),
    old.sysmeta.serialVersion,
  );
  return oldPid;
}

/** A new object's record on the CN: as its node describes it, with the replica list the CN keeps. */
export function asHarvested(sysmeta: SystemMetadata, nodeId: string, now: Date): SystemMetadata {
  return {
    ...sysmeta,
    serialVersion: sysmeta.serialVersion ?? 1,
    archived: sysmeta.archived ?? false,
    dateUploaded: sysmeta.dateUploaded ?? now,
    dateSysMetadataModified: sysmeta.dateSysMetadataModified ?? now,
    originMemberNode: sysmeta.originMemberNode ?? nodeId,
    authoritativeMemberNode: sysmeta.authoritativeMemberNode ?? nodeId,
    // The CN directs replication: its list starts with the node the object came from.
    replicas: withReplica([], nodeId, now),
  };
}

/** "DATA stays on the MN": only METADATA and RESOURCE objects are copied. */
export const holdsBytes = (ctx: NodeContext, formatId: string) => {
  const type = ctx.formats.get(formatId)?.formatType;
  return type === "METADATA" || type === "RESOURCE";
};

/** Digests of an object the CN knows by system metadata alone: its size (the checksum is in the sysmeta). */
export const sysmetaOnly = (sysmeta: SystemMetadata) => ({
  size: sysmeta.size,
  md5: "",
  sha1: "",
  sha256: "",
});

async function createFromNode(
  ctx: NodeContext,
  nodeId: string,
  source: SourceNode,
  sysmeta: SystemMetadata,
): Promise<SyncOutcome> {
  const pid = sysmeta.identifier;
  const reservation = await ctx.db.cn.reservation(pid);
  if (reservation?.subject === "") {
    throw new InvalidSystemMetadata(`"${pid}" was deleted from the system; its identifier stays retired.`, {
      pid,
    });
  }
  await checkSeries(ctx, sysmeta);
  const now = new Date();
  const stored = asHarvested(sysmeta, nodeId, now);
  // The write core indexes the new object and the one it obsoletes, announces the latter's obsoletedBy to the
  // nodes holding it, and plans replicas when the policy asks for them.
  const write = async (tx: ObjectTransaction, contentKey: string, digests: StoredObject["digests"]) => {
    await linkObsoleted(tx, stored, now);
    await tx.objects.insert({ sysmeta: stored, contentKey, digests, isReplica: false });
    replanIfWanted(tx, stored);
  };
  try {
    if (holdsBytes(ctx, stored.formatId)) {
      const bytes = await source.get(pid, stored.size);
      const options = { algorithm: stored.checksum.algorithm, expectedSize: stored.size };
      const staged = await stageHolding(ctx.store, bytes, options, bytesWanted(ctx.changes, stored.formatId));
      try {
        checkDigests(stored, staged.digests);
      } catch (error) {
        await staged.discard();
        throw error;
      }
      await ingest(ctx, "harvest", staged, (tx, key) => write(tx, key, staged.digests));
    } else {
      await writeObjects(ctx, "harvest", (tx) => write(tx, NO_BYTES, sysmetaOnly(stored)));
    }
  } catch (error) {
    // Another harvest of the same object got there first: nothing to add.
    if (await ctx.db.objects.get(pid)) return "unchanged";
    if (error instanceof DuplicateKeyError) {
      throw new InvalidSystemMetadata(`"${pid}" is in use as a seriesId on the Coordinating Node.`, { pid });
    }
    throw asSeriesRefusal(error);
  }
  if (reservation) await ctx.db.cn.releaseReservation(pid);
  return "created";
}

async function updateFromAuthoritative(
  ctx: NodeContext,
  existing: StoredObject,
  incoming: SystemMetadata,
): Promise<SyncOutcome> {
  const pid = existing.sysmeta.identifier;
  if (incoming.seriesId !== undefined && existing.sysmeta.seriesId === undefined)
    await checkSeries(ctx, incoming);
  const now = new Date();
  // The write core indexes and announces this object and the one it obsoletes, and plans replicas (the policy
  // may have changed).
  const changed = await writeObjects(ctx, "harvest", async (tx) => {
    const current = await tx.objects.get(pid);
    if (!current) return undefined;
    const changes = authoritativeChanges(current.sysmeta, incoming);
    if (!changes) return undefined;
    const next = nextRevision(current.sysmeta, now, changes);
    if (current.sysmeta.obsoletes === undefined) await linkObsoleted(tx, next, now);
    await tx.objects.replaceSysmeta(next, current.sysmeta.serialVersion);
    replanIfWanted(tx, next);
    return next;
  }).catch((error: unknown) => {
    throw asSeriesRefusal(error); // a seriesId taken meanwhile (checked again in the write)
  });
  return changed ? "updated" : "unchanged";
}

/**
 * The checksum a node claiming a replica must answer. Where the CN holds the bytes (METADATA and RESOURCE
 * objects), a digest it computed itself in another algorithm than the system metadata's: a value published
 * nowhere, which only a node holding the bytes can give. Otherwise the system metadata's checksum.
 */
function challengeFor(object: StoredObject): Checksum {
  const { sysmeta, digests, contentKey } = object;
  if (contentKey === NO_BYTES) return sysmeta.checksum;
  const declared = algorithmKey(sysmeta.checksum.algorithm);
  const own = (
    [
      ["SHA-256", "sha256"],
      ["SHA-1", "sha1"],
      ["MD5", "md5"],
    ] as const
  ).find(([name, key]) => algorithmKey(name) !== declared && digests[key] !== "");
  return own ? { algorithm: own[0], value: digests[own[1]] } : sysmeta.checksum;
}

/**
 * A node listing an object another node is authoritative for holds a replica: the CN records it once, as
 * completed only when the node proves the bytes: MNRead.getChecksum answers challengeFor's checksum in its
 * algorithm (a node recomputes it from its stored bytes when a CN asks), whatever the algorithm of the node's own
 * system metadata.
 */
async function recordReplica(
  ctx: NodeContext,
  nodeId: string,
  source: SourceNode,
  existing: StoredObject,
  incoming: SystemMetadata,
): Promise<SyncOutcome> {
  checkSameBytes(existing.sysmeta, incoming);
  const pid = existing.sysmeta.identifier;
  if (existing.sysmeta.replicas.some((r) => r.replicaMemberNode === nodeId)) return "unchanged";
  const expected = challengeFor(existing);
  const verdict = checksumVerdict(nodeId, expected, await source.getChecksum(pid, expected.algorithm));
  if (!verdict.valid) {
    throw new InvalidSystemMetadata(`The replica on ${nodeId} is not recorded: ${verdict.why}.`, { pid });
  }
  const changed = await writeObjects(ctx, "harvest", async (tx) => {
    const current = await tx.objects.get(pid);
    if (!current || current.sysmeta.replicas.some((r) => r.replicaMemberNode === nodeId)) return false;
    const now = new Date();
    const next = nextRevision(current.sysmeta, now, {
      replicas: withReplica(current.sysmeta.replicas, nodeId, now),
    });
    await tx.objects.replaceSysmeta(next, current.sysmeta.serialVersion);
    return true;
  });
  return changed ? "updated" : "unchanged";
}
