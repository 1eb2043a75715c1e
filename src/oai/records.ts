/**
 * Records of a page: each row's header (identifier, datestamp, status, setSpecs) and, for ListRecords and
 * GetRecord, its metadata in the requested format. Science metadata is read from the store at most once per
 * record, and only for the formats that need it.
 */
import type { NodeContext } from "../context/node-context.ts";
import type { OaiRecordRow } from "../db/oai-records.ts";
import { doiOf } from "../doi/datacite/index.ts";
import { readBytes as wholeBytes } from "../doi/read-bytes.ts";
import { dataciteXmlOfObject } from "../services/mn/datacite-records.ts";
import type { StoredObject } from "../types/stored-object.ts";
import { extractMetadata } from "../views/extract/index.ts";
import type { MetadataModel } from "../views/model.ts";
import type { MetadataFormat, RecordInput } from "./formats.ts";
import { formatTypeOf, formatTypeSetSpec, packageSetSpec } from "./sets.ts";
import { type HeaderFields, headerXml, recordXml } from "./xml.ts";

/** Science metadata larger than this is not read for a record (its oai_dc comes from system metadata). */
const MAX_METADATA_BYTES = 16 * 1024 * 1024;

async function headers(ctx: NodeContext, rows: readonly OaiRecordRow[]): Promise<HeaderFields[]> {
  const live = rows.filter((row) => !row.deleted).map((row) => row.pid);
  const packages = live.length > 0 ? await ctx.db.oai.packagesOf(live) : new Map<string, string[]>();
  return rows.map((row) => ({
    identifier: row.pid,
    datestamp: row.datestamp,
    deleted: row.deleted,
    setSpecs: [
      formatTypeSetSpec(formatTypeOf(ctx.formats, row.formatId)),
      ...(packages.get(row.pid) ?? []).map(packageSetSpec),
    ],
  }));
}

export async function headersXml(ctx: NodeContext, rows: readonly OaiRecordRow[]): Promise<string[]> {
  return (await headers(ctx, rows)).map(headerXml);
}

/**
 * Each row's record in `format`; a live record whose metadata cannot be made in it is left out (undefined),
 * as is one whose object was removed since the page was read.
 */
export async function recordsXml(
  ctx: NodeContext,
  rows: readonly OaiRecordRow[],
  format: MetadataFormat,
): Promise<(string | undefined)[]> {
  const fields = await headers(ctx, rows);
  const objects = await ctx.db.objects.getMany(rows.filter((row) => !row.deleted).map((row) => row.pid));
  return Promise.all(
    rows.map(async (row, i) => {
      const header = fields[i] as HeaderFields;
      if (row.deleted) return recordXml(header, undefined);
      const object = objects.get(row.pid);
      if (!object) return undefined;
      // A document that cannot be read or embedded leaves its record out of this format, not the whole page.
      const metadata = await format.render(recordInput(ctx, object)).catch(() => undefined);
      return metadata === undefined ? undefined : recordXml(header, metadata);
    }),
  );
}

function recordInput(ctx: NodeContext, object: StoredObject): RecordInput {
  const formatType = formatTypeOf(ctx.formats, object.sysmeta.formatId);
  let bytes: Promise<Buffer> | undefined;
  const read = () => {
    bytes ??= readBytes(ctx, object);
    return bytes;
  };
  return {
    object,
    formatType,
    bytes: read,
    datacite: async () => {
      const doi = doiOf(object.sysmeta.identifier);
      return doi === undefined ? undefined : dataciteXmlOfObject(ctx, object, doi);
    },
    model: async (): Promise<MetadataModel | undefined> => {
      if (object.digests.size > MAX_METADATA_BYTES) return undefined;
      try {
        const format = ctx.formats.get(object.sysmeta.formatId);
        return extractMetadata(
          await read(),
          object.sysmeta.formatId,
          format?.formatName ?? object.sysmeta.formatId,
        );
      } catch {
        return undefined;
      }
    },
  };
}

async function readBytes(ctx: NodeContext, object: StoredObject): Promise<Buffer> {
  if (object.digests.size > MAX_METADATA_BYTES)
    throw new Error(`${object.sysmeta.identifier} is too large to embed`);
  return wholeBytes(ctx, object);
}
