/**
 * Headers describing an object, sent by describe (HEAD) and get. MNRead.describe "Returns headers only:
 * Last-Modified, Content-Length, Content-Type, [DataONE]-ObjectFormat (formatId), [DataONE]-Checksum (value
 * form <algorithm>,<hex checksum>), [DataONE]-SerialVersion". The Python client reads the format as
 * DataONE-FormatId, so both names are sent. Object bytes never change under a PID, so Last-Modified is the
 * sysmeta's dateUploaded and the strong entity tag is the SHA-256 the bytes are stored under (see
 * docs/decisions.md). Both are made once per object and kept beside it (the row cache hands out the same
 * frozen object until a write replaces it), not per request (docs/decisions.md, "Hot paths").
 */
import { objectLinkHeader } from "../../../landing/object-links.ts";
import type { StoredObject } from "../../../types/stored-object.ts";
import type { Validators } from "../../conditional-read.ts";
import { contentDisposition, headerSafe, httpDate } from "../../headers.ts";
import type { RouteScope } from "../scope.ts";

type ObjectValidators = Readonly<Validators & { lastModified: string }>;
type Format = ReturnType<RouteScope["ctx"]["formats"]["get"]>;

interface Described {
  validators: ObjectValidators;
  /** The format the headers were made with (a format list refresh may replace it), and the headers. */
  format?: Format;
  headers?: Readonly<Record<string, string>>;
}

/** Per object: its validators and headers, made on first use. Frozen objects are shared, so these are too. */
const described = new WeakMap<StoredObject, Described>();

function descriptionOf(object: StoredObject): Described {
  let found = described.get(object);
  if (!found) {
    found = { validators: Object.freeze(makeValidators(object)) };
    described.set(object, found);
  }
  return found;
}

/** The object's headers; shared and frozen: copy to change them. */
export function objectHeaders({ ctx }: RouteScope, object: StoredObject): Readonly<Record<string, string>> {
  const entry = descriptionOf(object);
  const format = ctx.formats.get(object.sysmeta.formatId);
  if (!entry.headers || entry.format !== format) {
    // A Member Node's objects link to their landing page and linkset (FAIR Signposting, src/landing/).
    const link: Record<string, string> =
      ctx.config.role === "mn"
        ? {
            link: objectLinkHeader(
              ctx.config.baseUrl,
              object.sysmeta.identifier,
              format?.formatType === "METADATA",
            ),
          }
        : {};
    entry.headers = Object.freeze({ ...makeHeaders(object, format, entry.validators), ...link });
    entry.format = format;
  }
  return entry.headers;
}

function makeHeaders(
  object: StoredObject,
  format: Format,
  validators: ObjectValidators,
): Record<string, string> {
  const { sysmeta } = object;
  const mediaType = sysmeta.mediaType?.name ?? format?.mediaType?.name ?? "application/octet-stream";
  const { etag, lastModified } = validators;
  return {
    "content-type": mediaType,
    "content-length": String(sysmeta.size),
    "last-modified": lastModified,
    ...(etag ? { etag, "accept-ranges": "bytes" } : {}),
    "content-disposition": contentDisposition(
      fileNameOf(sysmeta.identifier, sysmeta.fileName, format?.extension),
    ),
    "dataone-checksum": `${sysmeta.checksum.algorithm},${sysmeta.checksum.value}`,
    "dataone-serialversion": String(sysmeta.serialVersion ?? 1),
    "dataone-objectformat": headerSafe(sysmeta.formatId),
    "dataone-formatid": headerSafe(sysmeta.formatId),
  };
}

const CONTENT_KEY = /^[0-9a-f]{64}$/;

/**
 * The object's validators: `"sha256-<hex>"` of the stored bytes (none on a Coordinating Node that holds no bytes
 * of the object) and its dateUploaded.
 */
export function validatorsOf(object: StoredObject): ObjectValidators {
  return descriptionOf(object).validators;
}

function makeValidators(object: StoredObject): Validators & { lastModified: string } {
  const { sysmeta, contentKey } = object;
  const uploaded = sysmeta.dateUploaded ?? sysmeta.dateSysMetadataModified ?? new Date(0);
  return {
    ...(CONTENT_KEY.test(contentKey) ? { etag: `"sha256-${contentKey}"` } : {}),
    lastModified: httpDate(uploaded),
  };
}

/** The sysmeta fileName, or a name made from the identifier with the format's extension. */
export function fileNameOf(pid: string, fileName: string | undefined, extension: string | undefined): string {
  if (fileName && fileName.trim() !== "") return fileName;
  const base = pid.replace(/^.*[/\\:]/, "").replace(/[^\p{L}\p{N}._-]+/gu, "_") || "object";
  const ext = extension ? extension.replace(/^\./, "") : "bin";
  return base.toLowerCase().endsWith(`.${ext.toLowerCase()}`) ? base : `${base}.${ext}`;
}
