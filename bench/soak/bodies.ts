/**
 * Request bodies of the soak's clients: object content made on the fly (never held whole), v2 system metadata
 * with series and obsolescence, and multipart/form-data bodies streamed with a known length.
 */
import { createHash, randomBytes } from "node:crypto";

export const BOUNDARY = "----d1nodeSoakBoundaryq8Jd2kX0";
export const MULTIPART = `multipart/form-data; boundary=${BOUNDARY}`;
const BLOCK = 64 * 1024;

/** Object bytes: one random block repeated, each copy stamped with its index; `size` bytes in all. */
export class Content {
  private readonly block: Buffer;
  readonly sha1: string;

  constructor(readonly size: number) {
    this.block = randomBytes(Math.min(BLOCK, size));
    const hash = createHash("sha1");
    for (const chunk of this.chunks()) hash.update(chunk);
    this.sha1 = hash.digest("hex");
  }

  *chunks(): Generator<Buffer> {
    for (let at = 0, index = 0; at < this.size; at += BLOCK, index++) {
      const chunk = Buffer.from(this.block.subarray(0, Math.min(BLOCK, this.size - at)));
      if (chunk.length >= 8) chunk.writeBigUInt64BE(BigInt(index));
      yield chunk;
    }
  }
}

export interface SysmetaFields {
  pid: string;
  size: number;
  sha1: string;
  submitter: string;
  seriesId?: string;
  obsoletes?: string;
  formatId?: string;
}

/** A v2 system metadata document, readable by public (element order as in the v2 schema). */
export function sysmetaXml(s: SysmetaFields): string {
  return (
    '<?xml version="1.0" encoding="UTF-8"?>' +
    '<d1:systemMetadata xmlns:d1="http://ns.dataone.org/service/types/v2.0">' +
    `<serialVersion>1</serialVersion><identifier>${esc(s.pid)}</identifier>` +
    `<formatId>${esc(s.formatId ?? "application/octet-stream")}</formatId><size>${s.size}</size>` +
    `<checksum algorithm="SHA-1">${s.sha1}</checksum>` +
    `<submitter>${esc(s.submitter)}</submitter><rightsHolder>${esc(s.submitter)}</rightsHolder>` +
    "<accessPolicy><allow><subject>public</subject><permission>read</permission></allow></accessPolicy>" +
    (s.obsoletes ? `<obsoletes>${esc(s.obsoletes)}</obsoletes>` : "") +
    (s.seriesId ? `<seriesId>${esc(s.seriesId)}</seriesId>` : "") +
    "</d1:systemMetadata>"
  );
}

export interface Multipart {
  length: number;
  body: AsyncIterable<Buffer>;
}

/** Text fields, then (optionally) an object part with `content`: the whole length is known before sending. */
export function multipart(fields: Record<string, string>, content?: Content): Multipart {
  let head = "";
  for (const [name, value] of Object.entries(fields)) {
    const file = name === "sysmeta" ? '; filename="sysmeta.xml"\r\nContent-Type: text/xml' : "";
    head += `--${BOUNDARY}\r\nContent-Disposition: form-data; name="${name}"${file}\r\n\r\n${value}\r\n`;
  }
  if (content) {
    head +=
      `--${BOUNDARY}\r\nContent-Disposition: form-data; name="object"; filename="object.bin"\r\n` +
      "Content-Type: application/octet-stream\r\n\r\n";
  }
  const headBytes = Buffer.from(head);
  const tail = Buffer.from(`${content ? "\r\n" : ""}--${BOUNDARY}--\r\n`);
  return {
    length: headBytes.length + (content?.size ?? 0) + tail.length,
    body: (async function* () {
      yield headBytes;
      if (content) yield* content.chunks();
      yield tail;
    })(),
  };
}

/** A unique identifier for this run, readable in logs. */
export function uniqueId(prefix: string): string {
  return `${prefix}-${Date.now().toString(36)}-${randomBytes(4).toString("hex")}`;
}

export function esc(s: string): string {
  return s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;");
}
