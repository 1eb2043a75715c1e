/**
 * Publish with a DOI (Metacat's `PUT {mn}/v2/publish/{pid}`, MetacatUI's "Publish with DOI"): the science
 * metadata `pid` (or the head of series `pid`) gets a new version whose identifier is a new DOI of the node, the
 * resource map of its package a new version naming that DOI instead, and the answer is the DOI as an Identifier.
 * Each new version is an MNStorage.update, with its rules and permissions; the DOI's registration at DataCite
 * follows from that write (src/doi/outbox.ts). Access policies are kept: a DOI becomes findable once its object
 * is publicly readable (docs/decisions.md, "DOIs").
 */
import { Readable } from "node:stream";
import { isAllowed } from "../../auth/access.ts";
import type { CallInfo, NodeContext } from "../../context/node-context.ts";
import { readBytes } from "../../doi/read-bytes.ts";
import { InvalidRequest, NotAuthorized, NotImplemented } from "../../errors/exceptions.ts";
import { type Documents, parseResourceMap, ResourceMapError, resourceMapXml } from "../../ore/index.ts";
import { digestForAlgorithm } from "../../store/index.ts";
import type { StoredObject } from "../../types/stored-object.ts";
import { escapeAttr } from "../../types/xml.ts";
import { findByPidOrSid } from "../shared/resolve.ts";
import { packagesOf } from "./packages-of.ts";
import { generateIdentifier, requireSubmitter, update } from "./storage.ts";

export async function publish(ctx: NodeContext, call: CallInfo, id: string): Promise<string> {
  if (!ctx.config.doiPrefix) {
    throw new NotImplemented("This node mints no DOIs: its operator has not connected a DataCite account.");
  }
  requireSubmitter(ctx, call, "publish");
  const metadata = await findByPidOrSid(ctx, id);
  const pid = metadata.sysmeta.identifier;
  if (!isAllowed(call.session, "write", metadata.sysmeta)) {
    throw new NotAuthorized(`${call.session.subject} may not publish "${pid}"; it needs write permission.`, {
      pid: id,
    });
  }
  if (ctx.formats.get(metadata.sysmeta.formatId)?.formatType !== "METADATA") {
    throw new InvalidRequest(
      `"${pid}" is not science metadata (format ${metadata.sysmeta.formatId}); publish the metadata document that describes the dataset.`,
      { pid: id },
    );
  }
  const maps = await currentPackagesOf(ctx, pid);
  for (const map of maps) {
    if (!isAllowed(call.session, "write", map.sysmeta)) {
      throw new NotAuthorized(
        `${call.session.subject} may not publish "${pid}": it may not change its package's resource map "${map.sysmeta.identifier}".`,
        { pid: id },
      );
    }
  }
  const doi = await generateIdentifier(ctx, call, "DOI");
  const document = withPackageId(await readBytes(ctx, metadata), metadata.sysmeta.formatId, doi);
  await newVersion(ctx, call, metadata, doi, document);
  for (const map of maps) {
    const content = await readMap(ctx, map);
    if (!content) continue;
    const swap = (member: string) => (member === pid ? doi : member);
    const mapId = `resource_map_${doi}`;
    const xml = resourceMapXml(
      {
        id: mapId,
        members: content.members.map(swap),
        documents: content.documents.map((d: Documents) => ({
          metadata: swap(d.metadata),
          data: swap(d.data),
        })),
      },
      `${ctx.config.cnBaseUrl ?? "https://cn.dataone.org/cn"}/v2/resolve`,
    );
    await newVersion(
      ctx,
      call,
      map,
      maps.length === 1 ? mapId : `${mapId}_${maps.indexOf(map) + 1}`,
      Buffer.from(xml),
    );
  }
  return doi;
}

/** The resource maps that aggregate `pid` and have no newer version. */
async function currentPackagesOf(ctx: NodeContext, pid: string): Promise<StoredObject[]> {
  const maps = await ctx.db.objects.getMany(await packagesOf(ctx, pid));
  return [...maps.values()].filter(
    (m) => m.sysmeta.obsoletedBy === undefined && !m.sysmeta.archived && !m.isReplica,
  );
}

async function readMap(ctx: NodeContext, map: StoredObject) {
  try {
    return await parseResourceMap(await readBytes(ctx, map));
  } catch (error) {
    if (error instanceof ResourceMapError) return undefined;
    throw error;
  }
}

/** MNStorage.update of `old` to `newPid` with these bytes and the old system metadata otherwise. */
async function newVersion(
  ctx: NodeContext,
  call: CallInfo,
  old: StoredObject,
  newPid: string,
  bytes: Buffer,
): Promise<void> {
  const algorithm = old.sysmeta.checksum.algorithm;
  const staged = await ctx.store.stage(Readable.from([bytes]), { algorithm, expectedSize: bytes.length });
  try {
    const value = digestForAlgorithm(staged.digests, algorithm);
    if (value === undefined) await staged.addDigest(algorithm);
    const { obsoletedBy: _obsoletedBy, serialVersion: _serialVersion, ...kept } = old.sysmeta;
    const sysmeta = {
      ...kept,
      identifier: newPid,
      obsoletes: old.sysmeta.identifier,
      size: bytes.length,
      checksum: { algorithm, value: digestForAlgorithm(staged.digests, algorithm) ?? "" },
      replicas: [],
    };
    await update(ctx, call, old.sysmeta.identifier, newPid, sysmeta, staged);
  } finally {
    await staged.discard();
  }
}

/** EML names its package in the root's packageId: the new version carries the DOI there, as Metacat writes it. */
function withPackageId(bytes: Buffer, formatId: string, doi: string): Buffer {
  if (!/eml/i.test(formatId)) return bytes;
  const text = bytes.toString("utf8");
  const root = /<([A-Za-z_][\w.-]*:)?eml(\s[^>]*)?>/.exec(text);
  if (!root || !/\spackageId\s*=/.test(root[0])) return bytes;
  const tag = root[0].replace(/(\spackageId\s*=\s*)("[^"]*"|'[^']*')/, `$1"${escapeAttr(doi)}"`);
  return Buffer.from(text.slice(0, root.index) + tag + text.slice(root.index + root[0].length));
}
