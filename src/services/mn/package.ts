/**
 * MNPackage.getPackage: "pid: identifier of the resource map (OAI-ORE) object; if it names a member of the
 * package, the MN SHOULD raise InvalidRequest. Returns the serialized package." Everything that can fail is
 * checked before the bag is returned (map readable and parsable, every member held, readable and its bytes
 * present), so an error is a clean DataONE exception and never a broken zip.
 */
import { Readable } from "node:stream";
import { isAllowed } from "../../auth/access.ts";
import type { CallInfo, NodeContext } from "../../context/node-context.ts";
import { InvalidRequest, NotAuthorized, NotFound, ServiceFailure } from "../../errors/exceptions.ts";
import { isResourceMapFormat, parseResourceMap, ResourceMapError } from "../../ore/index.ts";
import { writeBag } from "../../packages/bag.ts";
import { safeFileName, UniqueNames } from "../../packages/names.ts";
import { type BagPlan, isPackageType, PACKAGE_TYPES, type PackageType } from "../../packages/types.ts";
import { type PackageValidators, packageValidators } from "../../packages/validators.ts";
import { SMALL_READ_LIMIT } from "../../store/index.ts";
import { serializeSystemMetadata } from "../../types/index.ts";
import type { StoredObject } from "../../types/stored-object.ts";
import type { ApiVersion } from "../../types/sysmeta.ts";
import { logEvent } from "../shared/events.ts";
import { readableObject } from "./read.ts";
import { withDigest } from "./stored-digest.ts";

/** Resource maps are metadata; one larger than this is refused rather than parsed. */
export const MAX_RESOURCE_MAP_BYTES = 64 * 1024 * 1024;
/** At most this many identifiers are named in an error description. */
const NAMED_IN_ERRORS = 5;

export interface PackageStream {
  type: PackageType;
  packageId: string;
  /** Suggested file name of the download. */
  fileName: string;
  validators: PackageValidators;
  /** The bag; absent when `deliver` declined it (the caller's copy is current): then no read is logged. */
  body: Readable | undefined;
}

export async function getPackage(
  ctx: NodeContext,
  call: CallInfo,
  packageType: string,
  pid: string,
  version: ApiVersion,
  deliver: (validators: PackageValidators) => boolean = () => true,
): Promise<PackageStream> {
  if (!isPackageType(packageType)) {
    throw new InvalidRequest(
      `Package type "${packageType}" is not supported; supported: ${PACKAGE_TYPES.join(", ")}.`,
      { pid },
    );
  }
  const map = await readableObject(ctx, call, pid);
  const mapId = map.sysmeta.identifier;
  if (!isResourceMapFormat(map.sysmeta.formatId)) {
    throw new InvalidRequest(
      `"${mapId}" is a ${map.sysmeta.formatId} object, not a resource map: ask for the package by the identifier of the resource map (OAI-ORE) that aggregates it.`,
      { pid },
    );
  }
  const parsed = await readResourceMap(ctx, map);
  const memberIds = parsed.members.filter((id) => id !== mapId);
  const members = await lookUpMembers(ctx, memberIds);
  checkMembers(call, mapId, memberIds, members);
  await checkBytesPresent(ctx, mapId, [map, ...(members as StoredObject[])]);

  const fileName = `${safeFileName(mapId)}.zip`;
  const validators = packageValidators({ type: packageType, version, nodeId: ctx.config.nodeId }, [
    map,
    ...(members as StoredObject[]),
  ]);
  if (!deliver(validators))
    return { type: packageType, packageId: mapId, fileName, validators, body: undefined };
  const [resourceMap = map, ...held] = await withManifestDigests(ctx, [map, ...(members as StoredObject[])]);
  const plan: BagPlan = {
    type: packageType,
    packageId: mapId,
    resourceMap,
    members: placeMembers(ctx, held),
    documents: parsed.documents,
    baggedAt: new Date(),
  };
  logEvent(ctx, call, mapId, "read");
  for (const m of plan.members) logEvent(ctx, call, m.object.sysmeta.identifier, "read");
  const body = writeBag(
    plan,
    {
      open: (object) => openBytes(ctx, object),
      sysmetaXml: (object) => serializeSystemMetadata(object.sysmeta, version),
    },
    ctx.config.nodeId,
  );
  return { type: packageType, packageId: mapId, fileName, validators, body };
}

/** The objects with the digests the manifests list (MD5, SHA-256), computed now where the upload did not. */
async function withManifestDigests(ctx: NodeContext, objects: StoredObject[]): Promise<StoredObject[]> {
  const complete: StoredObject[] = [];
  for (const object of objects) complete.push(await withDigest(ctx, object, "md5"));
  return complete;
}

async function readResourceMap(ctx: NodeContext, map: StoredObject) {
  try {
    return await parseResourceMap(openBytes(ctx, map), { maxBytes: MAX_RESOURCE_MAP_BYTES });
  } catch (error) {
    if (error instanceof ResourceMapError) {
      throw new ServiceFailure(
        `The resource map "${map.sysmeta.identifier}" cannot be read: ${error.message}`,
        {
          pid: map.sysmeta.identifier,
        },
      );
    }
    throw error;
  }
}

async function lookUpMembers(ctx: NodeContext, ids: string[]): Promise<(StoredObject | undefined)[]> {
  const found = await ctx.db.objects.getMany(ids);
  return ids.map((id) => found.get(id));
}

/**
 * A member this node does not hold is NotFound, naming it. A member the caller may not read refuses the whole
 * package with NotAuthorized (a bag is the complete package or nothing; see docs/decisions.md).
 */
function checkMembers(
  call: CallInfo,
  mapId: string,
  ids: string[],
  members: (StoredObject | undefined)[],
): void {
  const missing = ids.filter((_, i) => members[i] === undefined);
  if (missing.length) {
    throw new NotFound(
      `The package "${mapId}" aggregates ${missing.length} object(s) this node does not hold: ${named(missing)}.`,
      { pid: mapId },
    );
  }
  const unreadable = (members as StoredObject[])
    .filter((m) => !isAllowed(call.session, "read", m.sysmeta))
    .map((m) => m.sysmeta.identifier);
  if (unreadable.length) {
    throw new NotAuthorized(
      `${call.session.subject} may not read ${unreadable.length} member(s) of the package "${mapId}": ${named(unreadable)}; a package is sent whole or not at all.`,
      { pid: mapId },
    );
  }
}

async function checkBytesPresent(ctx: NodeContext, mapId: string, objects: StoredObject[]): Promise<void> {
  const present = await Promise.all(objects.map((o) => ctx.store.has(o.contentKey)));
  const absent = objects.filter((_, i) => !present[i]).map((o) => o.sysmeta.identifier);
  if (absent.length) {
    throw new ServiceFailure(
      `The bytes of ${named(absent)} are missing from this node's store; the package "${mapId}" cannot be built.`,
      {
        pid: mapId,
      },
    );
  }
}

function placeMembers(ctx: NodeContext, members: StoredObject[]): BagPlan["members"] {
  const names = new UniqueNames();
  return members.map((object) => {
    const { fileName, identifier, formatId } = object.sysmeta;
    const extension = ctx.formats.get(formatId)?.extension;
    const name = names.claim(
      safeFileName(fileName ?? (extension ? `${identifier}.${extension}` : identifier)),
    );
    return { object, path: `data/${name}`, sysmetaPath: `metadata/sysmeta/${name}.xml` };
  });
}

function openBytes(ctx: NodeContext, object: StoredObject): Readable {
  const { size } = object.digests;
  if (size <= SMALL_READ_LIMIT && ctx.store.readSmall)
    return Readable.from([ctx.store.readSmall(object.contentKey, size)]);
  return ctx.store.read(object.contentKey, { start: 0, end: size - 1 });
}

export function named(ids: string[]): string {
  const shown = ids.slice(0, NAMED_IN_ERRORS).map((id) => `"${id}"`);
  return ids.length > NAMED_IN_ERRORS
    ? `${shown.join(", ")} and ${ids.length - NAMED_IN_ERRORS} more`
    : shown.join(", ");
}
