/**
 * The repository's sets (OAI-PMH section 4.6): objects by DataONE format type, and by data package.
 *   formatType, formatType:DATA, formatType:METADATA, formatType:RESOURCE
 *   package, package:<resource map PID, escaped>
 * A setSpec may only hold [A-Za-z0-9-_.!~*'()] between colons, so a PID's other characters (and "~") are
 * written as ~XX per UTF-8 byte: "doi:10.5063/F1" is package:doi~3A10.5063~2FF1.
 */
import type { FormatCondition } from "../db/oai-records.ts";
import type { FormatRegistry } from "../types/format-registry.ts";
import { OaiError } from "./errors.ts";

export const FORMAT_TYPES = ["DATA", "METADATA", "RESOURCE"] as const;
export type FormatType = (typeof FORMAT_TYPES)[number];

const SET_SPEC = /^[A-Za-z0-9\-_.!~*'()]+(:[A-Za-z0-9\-_.!~*'()]+)*$/;
const KEPT = /[A-Za-z0-9\-_.!*'()]/;

export function escapeSetPart(pid: string): string {
  let out = "";
  for (const char of pid) {
    if (KEPT.test(char)) out += char;
    else
      for (const byte of Buffer.from(char, "utf8"))
        out += `~${byte.toString(16).toUpperCase().padStart(2, "0")}`;
  }
  return out;
}

export function unescapeSetPart(part: string): string | undefined {
  if (!/^(?:[A-Za-z0-9\-_.!*'()]|~[0-9A-F]{2})+$/.test(part)) return undefined;
  const bytes: number[] = [];
  for (let i = 0; i < part.length; ) {
    if (part[i] === "~") {
      bytes.push(Number.parseInt(part.slice(i + 1, i + 3), 16));
      i += 3;
    } else {
      bytes.push(part.charCodeAt(i));
      i += 1;
    }
  }
  const text = Buffer.from(bytes).toString("utf8");
  return escapeSetPart(text) === part ? text : undefined;
}

export const packageSetSpec = (mapPid: string) => `package:${escapeSetPart(mapPid)}`;
export const formatTypeSetSpec = (type: string) => `formatType:${type}`;

/** What a set argument selects; undefined for a well-formed set this repository does not have. */
export type SetSelection =
  | { formats: FormatCondition[] }
  | { formats: FormatCondition[]; packageOf: string }
  | { formats: FormatCondition[]; inAnyPackage: true };

export function checkSetSpec(set: string): void {
  if (!SET_SPEC.test(set)) throw new OaiError("badArgument", `"${set}" is not a setSpec.`);
}

export function selectSet(set: string, formats: FormatRegistry): SetSelection | undefined {
  checkSetSpec(set);
  const [top, ...rest] = set.split(":");
  if (top === "formatType") {
    if (rest.length === 0) return { formats: [] };
    if (rest.length !== 1) return undefined;
    const type = rest[0];
    if (type === "DATA")
      return { formats: [{ notIn: [...idsOfType(formats, "METADATA"), ...idsOfType(formats, "RESOURCE")] }] };
    if (type === "METADATA" || type === "RESOURCE") return { formats: [{ in: idsOfType(formats, type) }] };
    return undefined;
  }
  if (top === "package") {
    if (rest.length === 0) return { formats: [], inAnyPackage: true };
    const pid = rest.length === 1 ? unescapeSetPart(rest[0] as string) : undefined;
    return pid === undefined ? undefined : { formats: [], packageOf: pid };
  }
  return undefined;
}

/** The formatIds of one type in the registry. */
export function idsOfType(formats: FormatRegistry, type: FormatType): string[] {
  return formats
    .all()
    .filter((format) => format.formatType === type)
    .map((format) => format.formatId);
}

/** An object's format type: as the registry says, DATA for a format it does not list. */
export function formatTypeOf(formats: FormatRegistry, formatId: string): FormatType {
  const type = formats.get(formatId)?.formatType;
  return type === "METADATA" || type === "RESOURCE" ? type : "DATA";
}
