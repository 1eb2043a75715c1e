/**
 * The tests' one system-metadata factory (pure: no database, no node, so unit tests stay light):
 * - `submittedSysmeta` / `sysmetaXml`: a document as a client sends it for given bytes (size and checksum
 *   computed), typed or serialised;
 * - `storedSysmeta` / `storedObject`: a complete document as a node stores it, dated at a fixed instant.
 * Everything else in the tests builds on these (`auth-objects.ts`, `../db/databases.ts`, the unit fixtures).
 */
import { createHash, randomUUID } from "node:crypto";
import type { StoredObject } from "../../../src/db/types.ts";
import type { AccessRule, SystemMetadata } from "../../../src/types/sysmeta.ts";
import { serializeSystemMetadata } from "../../../src/types/xml-documents/sysmeta-xml.ts";

export function uniquePid(tag = "obj"): string {
  return `test-${tag}-${randomUUID()}`;
}

export interface SysmetaOptions {
  rightsHolder?: string;
  formatId?: string;
  algorithm?: "MD5" | "SHA-1" | "SHA-256";
  checksum?: string;
  size?: number;
  seriesId?: string;
  obsoletes?: string;
  obsoletedBy?: string;
  fileName?: string;
  /** Subjects allowed read (default: public); ignored when `accessPolicy` is given. */
  readers?: string[];
  /** Subjects allowed write; ignored when `accessPolicy` is given. */
  writers?: string[];
  accessPolicy?: AccessRule[];
  serialVersion?: number;
  version?: "v1" | "v2";
  /** Raw elements placed after obsoletedBy (archived, dates, nodes, replicas) in the serialised form. */
  extra?: string;
}

const NODE_ALGORITHM: Record<string, string> = { MD5: "md5", "SHA-1": "sha1", "SHA-256": "sha256" };

/** System metadata as a client sends it with `bytes`: submitter and rights holder CN=tester, public read. */
export function submittedSysmeta(pid: string, bytes: Buffer, o: SysmetaOptions = {}): SystemMetadata {
  const algorithm = o.algorithm ?? "SHA-1";
  const checksum =
    o.checksum ??
    createHash(NODE_ALGORITHM[algorithm] ?? "sha1")
      .update(bytes)
      .digest("hex");
  const accessPolicy: AccessRule[] = o.accessPolicy ?? [
    ...(o.readers ?? ["public"]).map((s): AccessRule => ({ subjects: [s], permissions: ["read"] })),
    ...(o.writers ?? []).map((s): AccessRule => ({ subjects: [s], permissions: ["write"] })),
  ];
  const optional = { serialVersion: o.serialVersion, obsoletes: o.obsoletes, obsoletedBy: o.obsoletedBy };
  const v2 = { seriesId: o.seriesId, fileName: o.fileName };
  return {
    ...defined(optional),
    identifier: pid,
    formatId: o.formatId ?? "text/csv",
    size: o.size ?? bytes.length,
    checksum: { algorithm, value: checksum },
    submitter: o.rightsHolder ?? "CN=tester",
    rightsHolder: o.rightsHolder ?? "CN=tester",
    accessPolicy,
    replicas: [],
    ...((o.version ?? "v2") === "v2" ? defined(v2) : {}),
  };
}

/** `submittedSysmeta` serialised (v2 unless `version` says v1), with `extra` after obsoletedBy. */
export function sysmetaXml(pid: string, bytes: Buffer, o: SysmetaOptions = {}): string {
  const version = o.version ?? "v2";
  const sysmeta = submittedSysmeta(pid, bytes, o);
  if (!o.extra) return serializeSystemMetadata(sysmeta, version);
  // The v2 tail (seriesId, fileName) follows the extra elements: serialise without it, then add both.
  const { seriesId, fileName, ...head } = sysmeta;
  const xml = serializeSystemMetadata(head, version);
  const close = xml.lastIndexOf("</");
  const tail = [["seriesId", seriesId] as const, ["fileName", fileName] as const]
    .map(([name, value]) => (value === undefined ? "" : `<${name}>${esc(value)}</${name}>`))
    .join("");
  return `${xml.slice(0, close)}${o.extra}${tail}${xml.slice(close)}`;
}

function defined<T extends object>(fields: T): Partial<T> {
  return Object.fromEntries(Object.entries(fields).filter(([, value]) => value !== undefined)) as Partial<T>;
}

/** The instant storedSysmeta dates an object at. */
export const dateAt = (offsetMs: number): Date => new Date(Date.UTC(2026, 0, 1) + offsetMs);

/** A complete document as a node stores it: dates a fixed instant plus `offsetMs`, owner CN=owner, public read. */
export function storedSysmeta(
  pid: string,
  overrides: Partial<SystemMetadata> = {},
  offsetMs = 0,
): SystemMetadata {
  const at = dateAt(offsetMs);
  return {
    serialVersion: 1,
    identifier: pid,
    formatId: "text/csv",
    size: 3,
    checksum: { algorithm: "SHA-1", value: "s".repeat(40) },
    submitter: "CN=submitter",
    rightsHolder: "CN=owner",
    accessPolicy: [{ subjects: ["public"], permissions: ["read"] }],
    archived: false,
    dateUploaded: at,
    dateSysMetadataModified: at,
    originMemberNode: "urn:node:TEST",
    authoritativeMemberNode: "urn:node:TEST",
    replicas: [],
    ...overrides,
  };
}

/** A complete stored object (3 bytes, digests made up) with `storedSysmeta`. */
export function storedObject(
  pid: string,
  overrides: Partial<SystemMetadata> = {},
  offsetMs = 0,
): StoredObject {
  return {
    contentKey: "a".repeat(64),
    isReplica: false,
    digests: { size: 3, md5: "m".repeat(32), sha1: "s".repeat(40), sha256: "a".repeat(64) },
    sysmeta: storedSysmeta(pid, overrides, offsetMs),
  };
}

function esc(s: string): string {
  return s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;");
}

/** Top-level elements of a v2 systemMetadata document, in schema order (v1 stops at replica). */
const SYSMETA_ORDER = [
  "serialVersion",
  "identifier",
  "formatId",
  "size",
  "checksum",
  "submitter",
  "rightsHolder",
  "accessPolicy",
  "replicationPolicy",
  "obsoletes",
  "obsoletedBy",
  "archived",
  "dateUploaded",
  "dateSysMetadataModified",
  "originMemberNode",
  "authoritativeMemberNode",
  "replica",
  "seriesId",
  "mediaType",
  "fileName",
];

const elementPattern = (name: string) => new RegExp(`<${name}(?:\\s[^>]*)?(?:/>|>[\\s\\S]*?</${name}>)`, "g");

/** The text of the first `name` element of a document (entities decoded), undefined when absent. */
export function elementText(xml: string, name: string): string | undefined {
  const match = new RegExp(`<(?:[\\w.-]+:)?${name}(?:\\s[^>]*)?>([^<]*)</(?:[\\w.-]+:)?${name}>`).exec(xml);
  if (!match) return undefined;
  return (match[1] ?? "")
    .replace(/&lt;/g, "<")
    .replace(/&gt;/g, ">")
    .replace(/&quot;/g, '"')
    .replace(/&apos;/g, "'")
    .replace(/&amp;/g, "&");
}

/**
 * A system metadata document (as a node serialises it) with top-level elements changed: a value starting with
 * "<" is the whole new element, any other string the new text; null removes the element. New elements go in
 * schema order.
 */
export function editSysmeta(xml: string, changes: Record<string, string | null>): string {
  let out = xml;
  for (const [name, value] of Object.entries(changes)) {
    const element = value === null ? "" : value.startsWith("<") ? value : `<${name}>${esc(value)}</${name}>`;
    if (elementPattern(name).test(out)) {
      out = out.replace(elementPattern(name), element);
      continue;
    }
    if (element === "") continue;
    const later = SYSMETA_ORDER.slice(SYSMETA_ORDER.indexOf(name) + 1);
    const positions = later.map((next) => out.search(new RegExp(`<${next}[\\s/>]`))).filter((at) => at >= 0);
    const at = positions.length > 0 ? Math.min(...positions) : out.lastIndexOf("</");
    out = `${out.slice(0, at)}${element}${out.slice(at)}`;
  }
  return out;
}
