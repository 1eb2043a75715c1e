/**
 * The DataCite record of an object the node holds: its system metadata, the science metadata describing it, and
 * its neighbours (versions, packages, what documents what), gathered here and handed to the pure crosswalk.
 */
import { Readable } from "node:stream";
import type { NodeContext } from "../../context/node-context.ts";
import { type DataciteSource, dataciteXmlFor, type RelatedObjects } from "../../doi/datacite/index.ts";
import { readBytes } from "../../doi/read-bytes.ts";
import { isResourceMapFormat, parseResourceMap, ResourceMapError } from "../../ore/index.ts";
import type { ResourceMap } from "../../ore/types.ts";
import { doiOf } from "../../types/doi.ts";
import type { StoredObject } from "../../types/stored-object.ts";
import { packagesOf } from "./packages-of.ts";

/** Science metadata larger than this is not read for its record (the record then holds what sysmeta says). */
const MAX_METADATA_BYTES = 16 * 1024 * 1024;

async function resourceMap(ctx: NodeContext, map: StoredObject): Promise<ResourceMap | undefined> {
  try {
    return await parseResourceMap(Readable.from([await readBytes(ctx, map)]));
  } catch (error) {
    if (error instanceof ResourceMapError) return undefined;
    throw error;
  }
}

/** The URL a DataONE identifier resolves at: through the CN when the node has one, else the node itself. */
export function resolveUrlOf(ctx: Pick<NodeContext, "config">): (pid: string) => string {
  const base = ctx.config.cnBaseUrl ?? ctx.config.baseUrl;
  return (pid) => `${base}/v2/resolve/${encodeURIComponent(pid)}`;
}

/** What the crosswalk needs to describe `object` under `doi`. */
export async function dataciteSourceOf(
  ctx: NodeContext,
  object: StoredObject,
  doi: string,
): Promise<DataciteSource> {
  const { sysmeta } = object;
  const format = ctx.formats.get(sysmeta.formatId);
  const isMetadata = format?.formatType === "METADATA";
  const related: RelatedObjects = {
    ...(sysmeta.obsoletes ? { previousVersion: sysmeta.obsoletes } : {}),
    ...(sysmeta.obsoletedBy ? { nextVersion: sysmeta.obsoletedBy } : {}),
    packages: [],
    parts: [],
    describes: [],
    describedBy: [],
  };
  let metadata: StoredObject | undefined = isMetadata ? object : undefined;
  if (isResourceMapFormat(sysmeta.formatId)) {
    const map = await resourceMap(ctx, object);
    related.parts = map?.members ?? [];
    const documenting = map?.documents[0]?.metadata;
    metadata = documenting ? await ctx.db.objects.get(documenting) : undefined;
  } else {
    const maps = await ctx.db.objects.getMany(await packagesOf(ctx, sysmeta.identifier));
    for (const map of maps.values()) {
      if (map.sysmeta.obsoletedBy !== undefined || map.sysmeta.archived) continue;
      related.packages.push(map.sysmeta.identifier);
      for (const pair of (await resourceMap(ctx, map))?.documents ?? []) {
        if (pair.metadata === sysmeta.identifier) related.describes.push(pair.data);
        if (pair.data === sysmeta.identifier) related.describedBy.push(pair.metadata);
      }
    }
    if (!metadata && related.describedBy[0]) metadata = await ctx.db.objects.get(related.describedBy[0]);
  }
  const metadataFormat = metadata && ctx.formats.get(metadata.sysmeta.formatId);
  return {
    doi,
    sysmeta,
    isMetadata,
    publisher: ctx.config.nodeName,
    related,
    resolveUrl: resolveUrlOf(ctx),
    ...(format?.formatName ? { formatName: format.formatName } : {}),
    ...(metadata && metadata.sysmeta.size <= MAX_METADATA_BYTES
      ? {
          metadata: {
            bytes: await readBytes(ctx, metadata),
            formatId: metadata.sysmeta.formatId,
            ...(metadataFormat?.formatName ? { formatName: metadataFormat.formatName } : {}),
          },
        }
      : {}),
  };
}

/** The kernel-4.6 XML of a held object under `doi`. */
export async function dataciteXmlOfObject(
  ctx: NodeContext,
  object: StoredObject,
  doi: string,
): Promise<string> {
  return dataciteXmlFor(await dataciteSourceOf(ctx, object, doi));
}

/**
 * How `object`'s DataCite record is made for its landing page, or undefined when it has none: offered only for an
 * object whose PID is a DOI, since kernel 4's identifier is the DOI.
 */
export function dataciteRepresentation(
  object: StoredObject,
): ((ctx: NodeContext, held: StoredObject) => Promise<string>) | undefined {
  const doi = doiOf(object.sysmeta.identifier);
  if (doi === undefined) return undefined;
  return (ctx, held) => dataciteXmlOfObject(ctx, held, doi);
}
