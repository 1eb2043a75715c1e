/**
 * Finding the object an identifier names. "Where an operation accepts a SID, it acts on the HEAD PID of the
 * series" (API text, General rules 2). "Operations that read an object raise NotFound when it is not held by
 * the node serving the request" (General rules 1); the message points to CNRead.resolve.
 */

import type { NodeContext } from "../../context/node-context.ts";
import { type D1Error, NotFound } from "../../errors/exceptions.ts";
import type { StoredObject } from "../../types/stored-object.ts";

export async function findByPid(ctx: NodeContext, pid: string): Promise<StoredObject> {
  const object = await ctx.db.objects.get(pid);
  if (!object) throw notHeld(pid);
  return object;
}

/** A PID, or a SID standing for the HEAD PID of its series. */
export async function findByPidOrSid(ctx: NodeContext, id: string): Promise<StoredObject> {
  const object = await ctx.db.objects.get(id);
  if (object) return object;
  const head = await ctx.db.objects.headOfSeries(id);
  if (head) {
    const headObject = await ctx.db.objects.get(head);
    if (headObject) return headObject;
  }
  throw notHeld(id);
}

export function notHeld(id: string): D1Error {
  return new NotFound(
    `No object with identifier "${id}" is held by this node; CNRead.resolve on a Coordinating Node tells where it is.`,
    { pid: id },
  );
}
