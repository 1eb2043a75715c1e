/**
 * What one reviewer link opens, worked out again at every request from the stored objects: the addressed object,
 * the package's resource map and the members it aggregates. A member is in scope only when the link's rights
 * holder could share it anyway (holds changePermission on it: its rights holder, or granted it), so a map that
 * aggregates someone else's private object never opens that object. Other versions, other packages and series
 * are never in scope: everything is named by pid, as the map names it.
 */
import { Readable } from "node:stream";
import { isAllowed } from "../../../auth/access.ts";
import type { ReviewLinkRecord } from "../../../auth/review-link-store.ts";
import { sessionFor } from "../../../auth/session.ts";
import type { NodeContext } from "../../../context/node-context.ts";
import { NotAuthorized, ServiceFailure } from "../../../errors/exceptions.ts";
import { type Documents, parseResourceMap, ResourceMapError } from "../../../ore/index.ts";
import { SMALL_READ_LIMIT } from "../../../store/index.ts";
import type { StoredObject } from "../../../types/stored-object.ts";
import { MAX_RESOURCE_MAP_BYTES } from "../package.ts";
import { isEmlFormat } from "./anonymise.ts";

export interface ReviewScope {
  /** The object the link addresses. */
  addressed: StoredObject;
  /** The package's resource map, when the link opens one. */
  map: StoredObject | undefined;
  /** The objects a reviewer may read through the link, by pid: the addressed one and the map's members. */
  objects: ReadonlyMap<string, StoredObject>;
  documents: Documents[];
  /** The object the landing page shows: the metadata document of the package, else the addressed object. */
  page: StoredObject;
}

const NO_ROLES = { adminSubjects: [], cnSubjects: [] };

export async function reviewScope(ctx: NodeContext, link: ReviewLinkRecord): Promise<ReviewScope> {
  const owner = sessionFor(link.rightsHolder, NO_ROLES);
  // Metadata whose names cannot be hidden (not EML) never goes out through an anonymised link, even if its format
  // was changed after the link was made.
  const unhidden = (object: StoredObject) =>
    link.anonymise &&
    ctx.formats.get(object.sysmeta.formatId)?.formatType === "METADATA" &&
    !isEmlFormat(object.sysmeta.formatId);
  const mayShare = (object: StoredObject) =>
    isAllowed(owner, "changePermission", object.sysmeta) && !unhidden(object);
  const addressed = await ctx.db.objects.get(link.pid);
  // The link ends when its object goes, or passes to another rights holder.
  if (!addressed || addressed.sysmeta.rightsHolder !== link.rightsHolder || unhidden(addressed))
    throw invalidLink();
  const objects = new Map<string, StoredObject>([[addressed.sysmeta.identifier, addressed]]);
  const map = link.packagePid === undefined ? undefined : await ctx.db.objects.get(link.packagePid);
  let documents: Documents[] = [];
  if (map && mayShare(map)) {
    const parsed = await readMap(ctx, map);
    documents = parsed.documents;
    const members = await ctx.db.objects.getMany(parsed.members.filter((id) => id !== link.packagePid));
    for (const [pid, member] of members) if (mayShare(member)) objects.set(pid, member);
    objects.delete(map.sysmeta.identifier);
  }
  const metadataIds = new Set(documents.map((d) => d.metadata));
  const page =
    link.pid === link.packagePid
      ? ([...objects.values()].find((o) => metadataIds.has(o.sysmeta.identifier)) ?? addressed)
      : addressed;
  return { addressed, map: map && mayShare(map) ? map : undefined, objects, documents, page };
}

/** One answer for every link that does not open anything (unknown, wrong secret, expired, revoked, gone). */
export function invalidLink(): Error {
  return new NotAuthorized("This reviewer link is not valid: it is unknown, has expired or was revoked.");
}

async function readMap(ctx: NodeContext, map: StoredObject) {
  try {
    return await parseResourceMap(openStored(ctx, map), { maxBytes: MAX_RESOURCE_MAP_BYTES });
  } catch (error) {
    if (error instanceof ResourceMapError)
      throw new ServiceFailure(`The package's resource map cannot be read: ${error.message}`);
    throw error;
  }
}

export function openStored(ctx: NodeContext, object: StoredObject): Readable {
  const { size } = object.digests;
  if (size <= SMALL_READ_LIMIT && ctx.store.readSmall)
    return Readable.from([ctx.store.readSmall(object.contentKey, size)]);
  return ctx.store.read(object.contentKey, { start: 0, end: Math.max(size - 1, 0) });
}
