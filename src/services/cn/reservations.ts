/**
 * CNCore.reserveIdentifier, hasReservation, generateIdentifier, and the reservation check of create.
 * "Later create/update with the id must come from the reserving principal."
 */
import { randomUUID } from "node:crypto";
import { isTrusted } from "../../auth/access.ts";
import type { CallInfo, NodeContext } from "../../context/node-context.ts";
import { IdentifierNotUnique, InvalidRequest, NotAuthorized, NotFound } from "../../errors/exceptions.ts";
import { requireIdentifier } from "../identifiers.ts";

/** Used as a PID or SID, or retired by CNCore.delete. */
export async function isIdentifierTaken(ctx: NodeContext, id: string): Promise<boolean> {
  if (await ctx.db.objects.isIdentifierInUse(id)) return true;
  return (await ctx.db.cn.reservation(id))?.subject === "";
}

function requireAuthenticated(call: CallInfo, what: string): void {
  if (!call.session.authenticated) {
    throw new NotAuthorized(`An anonymous caller may not ${what}; authenticate with a certificate or token.`);
  }
}

/**
 * A subject holds at most `reservationMaxOpen` identifiers reserved and not yet used, so that reserving cannot
 * fill the database; one more is NotAuthorized, the refusal reserveIdentifier and generateIdentifier name
 * (docs/decisions.md, "Reservations per subject"). Administrators and Coordinating Nodes are not limited.
 */
export async function requireRoomToReserve(ctx: NodeContext, call: CallInfo): Promise<void> {
  if (isTrusted(call.session)) return;
  const limit = ctx.config.reservationMaxOpen;
  if ((await ctx.db.cn.openReservations(call.session.subject, limit)) < limit) return;
  throw new NotAuthorized(
    `${call.session.subject} holds ${limit} reserved identifiers not yet used, the most this node allows one ` +
      "subject; create objects with them before reserving more.",
  );
}

/** CNCore.reserveIdentifier: "IdentifierNotUnique (already exists or reserved)". */
export async function reserveIdentifier(
  ctx: NodeContext,
  call: CallInfo,
  id: string | undefined,
): Promise<string> {
  requireAuthenticated(call, "reserve identifiers");
  const pid = requireIdentifier(id, "identifier to reserve");
  if (await ctx.db.objects.isIdentifierInUse(pid)) {
    throw new IdentifierNotUnique(`The identifier "${pid}" is already in use.`, { pid });
  }
  await requireRoomToReserve(ctx, call);
  if (!(await ctx.db.cn.reserve(pid, call.session.subject))) {
    throw new IdentifierNotUnique(`The identifier "${pid}" is already reserved or was used before.`, { pid });
  }
  return pid;
}

/**
 * CNCore.hasReservation: "reserved by the subject gives 200; reserved by someone else gives NotAuthorized; not
 * reserved and not in use gives NotFound". The caller must be the subject (or a CN or administrator): anyone
 * else has "no authority" (NotAuthorized).
 */
export async function hasReservation(
  ctx: NodeContext,
  call: CallInfo,
  id: string,
  subject: string | undefined,
): Promise<true> {
  if (subject === undefined || subject.trim() === "")
    throw new InvalidRequest("The subject parameter is missing.");
  if (!isTrusted(call.session) && !call.session.subjects.has(subject)) {
    throw new NotAuthorized(`${call.session.subject} may not ask about the reservations of ${subject}.`, {
      pid: id,
    });
  }
  const reservation = await ctx.db.cn.reservation(id);
  if (reservation && reservation.subject !== "") {
    if (reservation.subject === subject) return true;
    throw new NotAuthorized(`The identifier "${id}" is reserved by another subject.`, { pid: id });
  }
  if (await isIdentifierTaken(ctx, id)) {
    throw new NotAuthorized(`The identifier "${id}" is in use and not reserved by ${subject}.`, { pid: id });
  }
  throw new NotFound(`The identifier "${id}" is neither reserved nor in use.`, { pid: id });
}

/** CNCore.generateIdentifier: "first version supports only UUID ... The generated id is also reserved." */
export async function generateIdentifier(
  ctx: NodeContext,
  call: CallInfo,
  scheme: string | undefined,
): Promise<string> {
  requireAuthenticated(call, "generate identifiers");
  if (scheme === undefined || scheme.trim() === "")
    throw new InvalidRequest("The scheme parameter is missing.");
  if (scheme.trim().toUpperCase() !== "UUID") {
    throw new InvalidRequest(`Identifier scheme "${scheme}" is not supported; the supported scheme is UUID.`);
  }
  await requireRoomToReserve(ctx, call);
  const id = `urn:uuid:${randomUUID()}`;
  await ctx.db.cn.reserve(id, call.session.subject);
  return id;
}

/** Creating `id`: refused when someone else holds the reservation (or the identifier was retired). */
export async function checkReservation(ctx: NodeContext, call: CallInfo, id: string): Promise<void> {
  const reservation = await ctx.db.cn.reservation(id);
  if (!reservation) return;
  if (reservation.subject === "") {
    throw new IdentifierNotUnique(`The identifier "${id}" was used before and stays in use.`, { pid: id });
  }
  if (!call.session.subjects.has(reservation.subject)) {
    throw new NotAuthorized(`The identifier "${id}" is reserved by another subject.`, { pid: id });
  }
}
