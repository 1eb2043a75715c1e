/** MNRead: get, getSystemMetadata, describe, getChecksum, listObjects, getReplica. */
import type { Readable } from "node:stream";
import { isAllowed, isTrusted, readFilter } from "../../auth/access.ts";
import type { CallInfo, NodeContext } from "../../context/node-context.ts";
import type { ObjectInfo, ObjectListFilter, Page } from "../../db/types.ts";
import { InvalidRequest, NotAuthorized } from "../../errors/exceptions.ts";
import { algorithmKey, DATAONE_NAME, SMALL_READ_LIMIT } from "../../store/index.ts";
import type { StoredObject } from "../../types/stored-object.ts";
import { logEvent } from "../shared/events.ts";
import { findByPid, findByPidOrSid } from "../shared/resolve.ts";
import { digestOfStoredBytes, knownDigest } from "./stored-digest.ts";

/** The object (PID or SID) if the caller may read it. "NotAuthorized:1000 (no read permission)". */
export async function readableObject(ctx: NodeContext, call: CallInfo, id: string): Promise<StoredObject> {
  return allowedToRead(call, id, await findByPidOrSid(ctx, id));
}

function allowedToRead(call: CallInfo, id: string, object: StoredObject): StoredObject {
  if (!isAllowed(call.session, "read", object.sysmeta)) {
    throw new NotAuthorized(`${call.session.subject} may not read "${object.sysmeta.identifier}".`, {
      pid: id,
    });
  }
  return object;
}

/** Object bytes: whole for small objects, else a stream. */
export type ObjectBody = Buffer | Readable;

/** Which bytes of the object a read delivers: all, one range (`end` inclusive), or none. */
export type Wanted = { bytes: "all" } | { bytes: "range"; start: number; end: number } | { bytes: "none" };

/**
 * Decides, once the object is found and the caller allowed, which of its bytes to deliver (the caller's HTTP
 * conditions: a copy it already has wants none). By default, all.
 */
export type Choose = (object: StoredObject) => Wanted;

export const ALL_BYTES: Wanted = Object.freeze({ bytes: "all" });
export const NO_BYTES: Wanted = Object.freeze({ bytes: "none" });
const ALL: Choose = () => ALL_BYTES;

/**
 * MNRead.get: "GET /object/{id} ... id: PID or SID (SID gives the HEAD PID)"; "get writes a read log entry": one
 * per call that delivers bytes, a range included, none for a call that delivers none.
 */
export async function get(
  ctx: NodeContext,
  call: CallInfo,
  id: string,
  choose: Choose = ALL,
): Promise<{ object: StoredObject; body: ObjectBody | undefined }> {
  return delivered(ctx, call, await readableObject(ctx, call, id), choose);
}

/**
 * get, when the object named by PID is at hand without waiting (`objects.peek`: the row cache, or SQLite read
 * directly), without a promise or a turn of the event loop; undefined when it is not (then get()).
 */
export function getNow(
  ctx: NodeContext,
  call: CallInfo,
  id: string,
  choose: Choose = ALL,
): { object: StoredObject; body: ObjectBody | undefined } | undefined {
  const object = ctx.db.objects.peek(id);
  return object && delivered(ctx, call, allowedToRead(call, id, object), choose);
}

function delivered(
  ctx: NodeContext,
  call: CallInfo,
  object: StoredObject,
  choose: Choose,
): { object: StoredObject; body: ObjectBody | undefined } {
  const body = bytesOf(ctx, object, choose(object));
  if (body) logEvent(ctx, call, object.sysmeta.identifier, "read");
  return { object, body };
}

/**
 * Small objects are read whole (a read stream per request is costly at small sizes; docs/decisions.md, "Hot
 * paths"), a range of one sliced from them; larger ones are streamed, bounded by their size or the range so
 * that no read goes past the end.
 */
function bytesOf(ctx: NodeContext, object: StoredObject, wanted: Wanted): ObjectBody | undefined {
  if (wanted.bytes === "none") return undefined;
  const size = object.digests.size;
  const { start, end } = wanted.bytes === "range" ? wanted : { start: 0, end: size - 1 };
  if (size <= SMALL_READ_LIMIT && ctx.store.readSmall) {
    const whole = ctx.store.readSmall(object.contentKey, size);
    return start === 0 && end === whole.length - 1 ? whole : whole.subarray(start, end + 1);
  }
  return ctx.store.read(object.contentKey, { start, end });
}

/**
 * MNRead.getReplica: "logged as a replication event, not a read event" (once per call that delivers bytes). Node administrators and CNs may pull any
 * replica; another caller must be a node the CN scheduled the replication for (CNReplication.isNodeAuthorized).
 */
export async function getReplica(
  ctx: NodeContext,
  call: CallInfo,
  pid: string,
  choose: Choose = ALL,
): Promise<{ object: StoredObject; body: ObjectBody | undefined }> {
  const { session } = call;
  if (!isTrusted(session)) {
    const refuse = (why: string) => new NotAuthorized(`getReplica is for replicating nodes; ${why}`, { pid });
    if (!session.authenticated) throw refuse("an anonymous caller is none.");
    if (!ctx.replicaAuthorizer) throw refuse("this node knows no Coordinating Node to ask about the caller.");
    await findByPid(ctx, pid);
    if (!(await ctx.replicaAuthorizer.isNodeAuthorized(pid, session.subject))) {
      throw refuse(`the Coordinating Node has not scheduled a replica of "${pid}" for ${session.subject}.`);
    }
  }
  const object = await findByPid(ctx, pid);
  const body = bytesOf(ctx, object, choose(object));
  if (body) logEvent(ctx, call, object.sysmeta.identifier, "replicate");
  return { object, body };
}

/** DataONE's system-wide default checksum algorithm. */
export const DEFAULT_CHECKSUM_ALGORITHM = "SHA-1";

/**
 * MNRead.getChecksum: "The value must be valid for the object (computed on the fly or from a certain cache)";
 * answered from the digests recorded (computed when the bytes arrived, or from the stored bytes on the first
 * request for one and recorded then), except to a Coordinating Node, which asks to audit
 * the copy held here: then it is computed on the fly from the stored bytes. "InvalidRequest:1402 (unsupported
 * algorithm; message should list supported ones)".
 */
export async function getChecksum(
  ctx: NodeContext,
  call: CallInfo,
  pid: string,
  algorithm: string = DEFAULT_CHECKSUM_ALGORITHM,
): Promise<{ algorithm: string; value: string }> {
  const object = await readableObject(ctx, call, pid);
  const key = algorithmKey(algorithm);
  if (key && call.session.isCn) {
    const { value } = await digestOfStoredBytes(ctx, object, algorithm);
    return { algorithm: DATAONE_NAME[key], value };
  }
  const value = key ? await knownDigest(ctx, object, key) : undefined;
  if (!key || value === undefined) {
    const extra = object.digests.extra?.algorithm;
    const names = ["MD5", "SHA-1", "SHA-256", ...(extra ? [extra] : [])];
    throw new InvalidRequest(
      `Checksum algorithm "${algorithm}" is not supported for this object; supported: ${names.join(", ")}.`,
      { pid },
    );
  }
  return { algorithm: DATAONE_NAME[key], value };
}

/** MNRead.listObjects: only objects the caller may read. */
export async function listObjects(
  ctx: NodeContext,
  call: CallInfo,
  filter: Omit<ObjectListFilter, "readableBy">,
  start: number,
  count: number,
): Promise<Page<ObjectInfo>> {
  const readableBy = readFilter(call.session);
  return ctx.db.objects.list({ ...filter, ...(readableBy ? { readableBy } : {}) }, start, count);
}
