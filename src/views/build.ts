/**
 * Builds the view model of one object from what a node holds. Node-agnostic: a Member Node and a Coordinating
 * Node each pass their own sources (where bytes come from, which packages an object is in) and links.
 */
import type { Readable } from "node:stream";
import { isResourceMapFormat, parseResourceMap, ResourceMapError } from "../ore/index.ts";
import type { StoredObject } from "../types/stored-object.ts";
import type { ObjectFormat } from "../types/xml-documents/format-xml.ts";
import { extractMetadata } from "./extract/index.ts";
import { emptyModel, type MetadataModel, type PackageSummary, type ViewModel } from "./model.ts";

/** Metadata documents are read whole to be rendered; larger ones get a page without their content. */
export const MAX_RENDERED_DOCUMENT_BYTES = 16 * 1024 * 1024;
/** A page lists at most this many members of a package. */
export const MAX_LISTED_MEMBERS = 500;

export interface ViewSources {
  format(formatId: string): ObjectFormat | undefined;
  open(object: StoredObject): Readable;
  /** The object a pid names, if the caller may read it (undefined otherwise: it is then not linked). */
  readable(pid: string): Promise<StoredObject | undefined>;
  /** `readable` for many pids at once: those held and readable, by pid. */
  readableMany(pids: readonly string[]): Promise<Map<string, StoredObject>>;
  /** Identifiers of the resource maps that aggregate `pid`. */
  packagesOf(pid: string): Promise<string[]>;
  /** The name of the repository holding the objects (the node's name), when known. */
  repository?: string;
}

export async function buildViewModel(sources: ViewSources, object: StoredObject): Promise<ViewModel> {
  const { sysmeta } = object;
  const format = sources.format(sysmeta.formatId);
  const standard = format?.formatName ?? sysmeta.formatId;
  let metadata: MetadataModel;
  let packageIds: string[];
  if (isResourceMapFormat(sysmeta.formatId)) {
    metadata = emptyModel("resource-map", standard);
    metadata.title = `Data package ${sysmeta.identifier}`;
    packageIds = [sysmeta.identifier];
  } else {
    if (format?.formatType === "METADATA") {
      metadata =
        sysmeta.size <= MAX_RENDERED_DOCUMENT_BYTES
          ? extractMetadata(await readAll(sources.open(object)), sysmeta.formatId, standard)
          : tooLarge(standard);
    } else {
      metadata = emptyModel("data", standard);
    }
    packageIds = await sources.packagesOf(sysmeta.identifier);
  }
  const packages = (await Promise.all(packageIds.map((id) => summarize(sources, id)))).filter(
    (p): p is PackageSummary => p !== undefined,
  );
  return { sysmeta, metadata, packages, ...(sources.repository ? { repository: sources.repository } : {}) };
}

async function summarize(sources: ViewSources, mapId: string): Promise<PackageSummary | undefined> {
  const map = await sources.readable(mapId);
  if (!map) return undefined;
  let memberIds: string[];
  try {
    memberIds = (await parseResourceMap(sources.open(map))).members;
  } catch (error) {
    if (error instanceof ResourceMapError) return { id: mapId, members: [] };
    throw error;
  }
  const listed = memberIds.slice(0, MAX_LISTED_MEMBERS);
  const readable = await sources.readableMany(listed);
  const members = listed.map((id) => {
    const member = readable.get(id);
    if (!member) return { id };
    const { formatId, size, fileName, checksum, mediaType } = member.sysmeta;
    return {
      id,
      formatId,
      size,
      checksum,
      ...(fileName ? { fileName } : {}),
      ...(mediaType ? { mediaType: mediaType.name } : {}),
    };
  });
  return { id: mapId, members };
}

function tooLarge(standard: string): MetadataModel {
  const model = emptyModel("xml", standard);
  model.fields.push({
    path: "(document)",
    value: `Larger than ${MAX_RENDERED_DOCUMENT_BYTES} bytes: download it to read it.`,
  });
  return model;
}

async function readAll(stream: Readable): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}
