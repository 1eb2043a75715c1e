/** Request bodies for MNStorage.create: system metadata documents and multipart/form-data bodies. */
import { createHash } from "node:crypto";

export const BOUNDARY = "----d1nodeBenchBoundary7MA4YWxkTrZu0gW";
export const CONTENT_TYPE = `multipart/form-data; boundary=${BOUNDARY}`;

export interface SysmetaInput {
  pid: string;
  size: number;
  /** SHA-1 hex of the bytes. */
  sha1: string;
  formatId?: string;
  rightsHolder?: string;
}

/** A v2 system metadata document, readable by public. */
export function sysmetaXml(s: SysmetaInput): string {
  const holder = esc(s.rightsHolder ?? "CN=bench-submitter,DC=d1node,DC=org");
  return (
    '<?xml version="1.0" encoding="UTF-8"?>' +
    '<ns2:systemMetadata xmlns:ns2="http://ns.dataone.org/service/types/v2.0">' +
    `<serialVersion>1</serialVersion><identifier>${esc(s.pid)}</identifier>` +
    `<formatId>${esc(s.formatId ?? "text/csv")}</formatId><size>${s.size}</size>` +
    `<checksum algorithm="SHA-1">${s.sha1}</checksum>` +
    `<submitter>${holder}</submitter><rightsHolder>${holder}</rightsHolder>` +
    "<accessPolicy><allow><subject>public</subject><permission>read</permission></allow></accessPolicy>" +
    "</ns2:systemMetadata>"
  );
}

/** The head of a create body (pid and sysmeta parts, then the object part's headers). */
export function createHead(pid: string, sysmeta: string): Buffer {
  return Buffer.from(
    `--${BOUNDARY}\r\nContent-Disposition: form-data; name="pid"\r\n\r\n${pid}\r\n` +
      `--${BOUNDARY}\r\nContent-Disposition: form-data; name="sysmeta"; filename="sysmeta.xml"\r\n` +
      `Content-Type: text/xml\r\n\r\n${sysmeta}\r\n` +
      `--${BOUNDARY}\r\nContent-Disposition: form-data; name="object"; filename="object.bin"\r\n` +
      "Content-Type: application/octet-stream\r\n\r\n",
  );
}

export const CREATE_TAIL = Buffer.from(`\r\n--${BOUNDARY}--\r\n`);

/** A whole create body for small bytes: pid, sysmeta, then the object. */
export function createBody(pid: string, bytes: Buffer): Buffer {
  const sha1 = createHash("sha1").update(bytes).digest("hex");
  const head = createHead(pid, sysmetaXml({ pid, size: bytes.length, sha1 }));
  return Buffer.concat([head, bytes, CREATE_TAIL]);
}

/** 1 KiB (or `size`) of bytes that differ for every `label`. */
export function smallContent(label: string, size = 1024): Buffer {
  const bytes = Buffer.alloc(size, 0x2e);
  bytes.write(`d1node bench object ${label}\n`, "latin1");
  return bytes;
}

function esc(s: string): string {
  return s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;");
}
