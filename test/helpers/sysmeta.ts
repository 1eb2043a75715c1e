/** Test fixtures: system metadata documents for given bytes, with a unique id per test. */
import { createHash, randomUUID } from "node:crypto";

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
  readers?: string[];
  writers?: string[];
  serialVersion?: number;
  version?: "v1" | "v2";
  extra?: string;
}

const NODE_ALGORITHM: Record<string, string> = { MD5: "md5", "SHA-1": "sha1", "SHA-256": "sha256" };

export function sysmetaXml(pid: string, bytes: Buffer, o: SysmetaOptions = {}): string {
  const algorithm = o.algorithm ?? "SHA-1";
  const checksum =
    o.checksum ??
    createHash(NODE_ALGORITHM[algorithm] ?? "sha1")
      .update(bytes)
      .digest("hex");
  const rules: string[] = [];
  for (const s of o.readers ?? ["public"])
    rules.push(`<allow><subject>${esc(s)}</subject><permission>read</permission></allow>`);
  for (const s of o.writers ?? [])
    rules.push(`<allow><subject>${esc(s)}</subject><permission>write</permission></allow>`);
  const v2 = (o.version ?? "v2") === "v2";
  const ns = v2 ? "http://ns.dataone.org/service/types/v2.0" : "http://ns.dataone.org/service/types/v1";
  return [
    `<?xml version="1.0" encoding="UTF-8"?><ns1:systemMetadata xmlns:ns1="${ns}">`,
    o.serialVersion !== undefined ? `<serialVersion>${o.serialVersion}</serialVersion>` : "",
    `<identifier>${esc(pid)}</identifier>`,
    `<formatId>${esc(o.formatId ?? "text/csv")}</formatId>`,
    `<size>${o.size ?? bytes.length}</size>`,
    `<checksum algorithm="${algorithm}">${checksum}</checksum>`,
    `<submitter>${esc(o.rightsHolder ?? "CN=tester")}</submitter>`,
    `<rightsHolder>${esc(o.rightsHolder ?? "CN=tester")}</rightsHolder>`,
    rules.length ? `<accessPolicy>${rules.join("")}</accessPolicy>` : "",
    o.obsoletes ? `<obsoletes>${esc(o.obsoletes)}</obsoletes>` : "",
    o.obsoletedBy ? `<obsoletedBy>${esc(o.obsoletedBy)}</obsoletedBy>` : "",
    o.extra ?? "",
    v2 && o.seriesId ? `<seriesId>${esc(o.seriesId)}</seriesId>` : "",
    v2 && o.fileName ? `<fileName>${esc(o.fileName)}</fileName>` : "",
    "</ns1:systemMetadata>",
  ].join("");
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
