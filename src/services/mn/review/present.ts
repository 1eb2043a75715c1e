/**
 * Objects as a reviewer link shows them. Always: no access policy, replicas, replication policy, series or
 * neighbours in the obsolescence chain (other versions are not opened by the link). With `anonymise`: the rights
 * holder and submitter withheld, file names made neutral ("metadata.xml", "data-1.csv", ...), EML metadata
 * and the resource map rewritten without names (anonymise.ts), their size and checksums those of the bytes sent.
 */
import { createHash } from "node:crypto";
import type { ReviewLinkRecord } from "../../../auth/review-link-store.ts";
import type { NodeContext } from "../../../context/node-context.ts";
import { isResourceMapFormat } from "../../../ore/index.ts";
import { safeFileName, UniqueNames } from "../../../packages/names.ts";
import type { StoredObject } from "../../../types/stored-object.ts";
import type { SystemMetadata } from "../../../types/sysmeta.ts";
import { anonymiseEml, anonymiseResourceMap, isEmlFormat, WITHHELD } from "./anonymise.ts";
import { openStored, type ReviewScope } from "./scope.ts";

/** An object as served through a link: its shown system metadata, and its bytes when they were rewritten. */
export interface Presented {
  object: StoredObject;
  /** The rewritten bytes (anonymised metadata); undefined: the stored bytes are sent as they are. */
  bytes: Buffer | undefined;
  fileName: string;
}

/** Every object in scope (and the map), presented; file names assigned once for the whole package. */
export async function presentScope(
  ctx: NodeContext,
  link: ReviewLinkRecord,
  scope: ReviewScope,
): Promise<Map<string, Presented>> {
  const names = fileNames(ctx, link, scope);
  const shown = new Map<string, Presented>();
  const all = [...scope.objects.values(), ...(scope.map ? [scope.map] : [])];
  for (const object of all) {
    const pid = object.sysmeta.identifier;
    shown.set(pid, await present(ctx, link, object, names.get(pid) ?? pid));
  }
  return shown;
}

async function present(
  ctx: NodeContext,
  link: ReviewLinkRecord,
  object: StoredObject,
  fileName: string,
): Promise<Presented> {
  const { formatId } = object.sysmeta;
  let bytes: Buffer | undefined;
  if (link.anonymise && (isEmlFormat(formatId) || isResourceMapFormat(formatId))) {
    const stored = await readAll(openStored(ctx, object));
    bytes = isEmlFormat(formatId) ? anonymiseEml(stored) : anonymiseResourceMap(stored);
  }
  const digests = bytes ? digestsOf(bytes) : object.digests;
  const sysmeta = shownSysmeta(object.sysmeta, link, fileName, bytes);
  return { object: { ...object, sysmeta, digests }, bytes, fileName };
}

function shownSysmeta(
  s: SystemMetadata,
  link: ReviewLinkRecord,
  fileName: string,
  bytes: Buffer | undefined,
): SystemMetadata {
  const {
    obsoletes: _obsoletes,
    obsoletedBy: _obsoletedBy,
    seriesId: _seriesId,
    replicationPolicy: _replicationPolicy,
    ...kept
  } = s;
  const shown: SystemMetadata = { ...kept, accessPolicy: [], replicas: [] };
  if (!link.anonymise) return shown;
  return {
    ...shown,
    rightsHolder: WITHHELD,
    submitter: WITHHELD,
    fileName,
    ...(bytes
      ? {
          size: bytes.length,
          checksum: { algorithm: "SHA-256", value: createHash("sha256").update(bytes).digest("hex") },
        }
      : {}),
  };
}

/** The name each object has in the package and its downloads. */
function fileNames(ctx: NodeContext, link: ReviewLinkRecord, scope: ReviewScope): Map<string, string> {
  const unique = new UniqueNames();
  const names = new Map<string, string>();
  const metadataIds = new Set(scope.documents.map((d) => d.metadata));
  let dataCount = 0;
  for (const object of scope.objects.values()) {
    const { identifier, fileName, formatId } = object.sysmeta;
    const extension = extensionOf(fileName) ?? ctx.formats.get(formatId)?.extension;
    const dotted = extension ? `.${extension}` : "";
    let name: string;
    if (!link.anonymise) name = fileName ?? `${identifier}${dotted}`;
    else if (metadataIds.has(identifier) || ctx.formats.get(formatId)?.formatType === "METADATA")
      name = `metadata${dotted || ".xml"}`;
    else name = `data-${++dataCount}${dotted}`;
    names.set(identifier, unique.claim(safeFileName(name)));
  }
  if (scope.map) names.set(scope.map.sysmeta.identifier, "oai-ore.xml");
  return names;
}

function extensionOf(fileName: string | undefined): string | undefined {
  const match = fileName === undefined ? null : /\.([A-Za-z0-9]{1,10})$/.exec(fileName);
  return match?.[1];
}

function digestsOf(bytes: Buffer): StoredObject["digests"] {
  const hex = (algorithm: string) => createHash(algorithm).update(bytes).digest("hex");
  return { size: bytes.length, md5: hex("md5"), sha1: hex("sha1"), sha256: hex("sha256") };
}

async function readAll(stream: NodeJS.ReadableStream): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}
