/**
 * Headers describing an object, sent by describe (HEAD) and get. MNRead.describe "Returns headers only:
 * Last-Modified, Content-Length, Content-Type, [DataONE]-ObjectFormat (formatId), [DataONE]-Checksum (value form
 * <algorithm>,<hex checksum>), [DataONE]-SerialVersion". The Python client reads the format as DataONE-FormatId,
 * so both names are sent.
 */
import type { StoredObject } from "../../../db/types.ts";
import { contentDisposition, headerSafe, httpDate } from "../../headers.ts";
import type { RouteScope } from "./context.ts";

export function objectHeaders({ ctx }: RouteScope, object: StoredObject): Record<string, string> {
  const { sysmeta } = object;
  const format = ctx.formats.get(sysmeta.formatId);
  const mediaType = sysmeta.mediaType?.name ?? format?.mediaType?.name ?? "application/octet-stream";
  const modified = sysmeta.dateSysMetadataModified ?? sysmeta.dateUploaded ?? new Date(0);
  return {
    "content-type": mediaType,
    "content-length": String(sysmeta.size),
    "last-modified": httpDate(modified),
    "content-disposition": contentDisposition(
      fileNameOf(sysmeta.identifier, sysmeta.fileName, format?.extension),
    ),
    "dataone-checksum": `${sysmeta.checksum.algorithm},${sysmeta.checksum.value}`,
    "dataone-serialversion": String(sysmeta.serialVersion ?? 1),
    "dataone-objectformat": headerSafe(sysmeta.formatId),
    "dataone-formatid": headerSafe(sysmeta.formatId),
  };
}

/** The sysmeta fileName, or a name made from the identifier with the format's extension. */
export function fileNameOf(pid: string, fileName: string | undefined, extension: string | undefined): string {
  if (fileName && fileName.trim() !== "") return fileName;
  const base = pid.replace(/^.*[/\\:]/, "").replace(/[^\p{L}\p{N}._-]+/gu, "_") || "object";
  const ext = extension ? extension.replace(/^\./, "") : "bin";
  return base.toLowerCase().endsWith(`.${ext.toLowerCase()}`) ? base : `${base}.${ext}`;
}
