/**
 * System metadata computed for `d1node upload` from flags, for people who do not write it by hand: the identifier
 * (`--pid`, default a new urn:uuid), the format (`--format-id`, default from the file's name and first bytes), the
 * size and checksum read from the file, the submitter from the caller's token or certificate, the rights holder
 * (`--rights-holder`, default the submitter) and the access policy (`--public`, `--access SUBJECT=PERMISSION`).
 * The document is DataONE v2 system metadata (dataoneTypes_v2.0.xsd).
 */
import { createHash, randomUUID, X509Certificate } from "node:crypto";
import { closeSync, createReadStream, openSync, readSync } from "node:fs";
import path from "node:path";
import { decodeJwt } from "jose";
import { readCertificate } from "../../certificates/parse.ts";
import { algorithmKey } from "../../store/algorithms.ts";
import { type AccessRule, PERMISSIONS, type Permission, type SystemMetadata } from "../../types/sysmeta.ts";
import { OperatorError } from "../operator-error.ts";
import { mib, progressLine } from "../progress.ts";

export interface SysmetaFlags {
  pid?: string;
  seriesId?: string;
  formatId?: string;
  rightsHolder?: string;
  public?: boolean;
  access?: string[];
  checksumAlgorithm?: string;
}

/** The flags that compute system metadata: none of them goes with a hand-written --sysmeta file. */
export const COMPUTING_FLAGS = [
  "seriesId",
  "formatId",
  "rightsHolder",
  "public",
  "access",
  "checksumAlgorithm",
];

/** Formats by file name ending; XML is looked into (EML, resource maps). */
const FORMAT_BY_EXTENSION: Record<string, string> = {
  ".csv": "text/csv",
  ".tsv": "text/tsv",
  ".txt": "text/plain",
  ".json": "application/json",
  ".nc": "netCDF-4",
  ".pdf": "application/pdf",
  ".png": "image/png",
  ".jpg": "image/jpeg",
  ".jpeg": "image/jpeg",
  ".tif": "image/tiff",
  ".tiff": "image/tiff",
  ".zip": "application/zip",
  ".r": "application/R",
  ".py": "application/x-python",
  ".html": "text/html",
  ".md": "text/markdown",
};
const RESOURCE_MAP = "http://www.openarchives.org/ore/terms";

/** Checks what can be checked before the file is read: the access rules, the algorithm. */
export function checkSysmetaFlags(flags: SysmetaFlags): void {
  accessRules(flags);
  if (flags.checksumAlgorithm !== undefined && !algorithmKey(flags.checksumAlgorithm)) {
    throw new OperatorError(`--checksum-algorithm: MD5, SHA-1 or SHA-256, not "${flags.checksumAlgorithm}"`);
  }
}

/** The system metadata of `file` for `submitter`, size and checksum read from the file. */
export async function computeSysmeta(
  file: string,
  submitter: string,
  flags: SysmetaFlags,
): Promise<SystemMetadata> {
  const algorithm = flags.checksumAlgorithm ?? "SHA-256";
  const checksum = await hashFile(file, algorithmKey(algorithm) ?? "sha256");
  const rightsHolder = flags.rightsHolder ?? submitter;
  return {
    identifier: flags.pid ?? `urn:uuid:${randomUUID()}`,
    formatId: flags.formatId ?? guessFormat(file),
    size: checksum.size,
    checksum: { algorithm, value: checksum.hex },
    submitter,
    rightsHolder,
    accessPolicy: accessRules(flags),
    replicas: [],
    ...(flags.seriesId ? { seriesId: flags.seriesId } : {}),
    fileName: path.basename(file),
  };
}

/** The caller's subject: the token's `sub` (or DataONE's `userId`), else the certificate's DN. */
export function callerSubject(token: string | undefined, cert: Buffer | undefined): string {
  if (token) {
    let claims: Record<string, unknown>;
    try {
      claims = decodeJwt(token);
    } catch {
      throw new OperatorError("the token file holds no readable token (a JWT)");
    }
    const subject = typeof claims.sub === "string" && claims.sub ? claims.sub : claims.userId;
    if (typeof subject !== "string" || !subject) throw new OperatorError("the token names no subject");
    return subject;
  }
  if (cert) {
    try {
      return readCertificate(new X509Certificate(cert).raw).subject;
    } catch {
      throw new OperatorError("the --cert file holds no readable certificate (PEM)");
    }
  }
  throw new OperatorError("give credentials: --token-file, or --cert and --key");
}

/** `--public` and each `--access SUBJECT=PERMISSION` (read, write, changePermission). */
function accessRules(flags: SysmetaFlags): AccessRule[] {
  const rules: AccessRule[] = flags.public ? [{ subjects: ["public"], permissions: ["read"] }] : [];
  for (const rule of flags.access ?? []) {
    const at = rule.lastIndexOf("=");
    const subject = rule.slice(0, at).trim();
    const permission = rule.slice(at + 1).trim() as Permission;
    if (at < 1 || !subject || !PERMISSIONS.includes(permission)) {
      throw new OperatorError(
        `--access "${rule}": give SUBJECT=PERMISSION, the permission read, write or changePermission`,
      );
    }
    rules.push({ subjects: [subject], permissions: [permission] });
  }
  return rules;
}

/** A format for the file: XML by its root element (EML, ORE resource map), else by its name's ending. */
export function guessFormat(file: string): string {
  const extension = path.extname(file).toLowerCase();
  if (extension === ".xml" || extension === ".rdf") {
    const head = readHead(file, 4096);
    if (head.includes(RESOURCE_MAP)) return RESOURCE_MAP;
    const eml =
      /xmlns(?::\w+)?\s*=\s*["']((?:eml:\/\/ecoinformatics\.org|https:\/\/eml\.ecoinformatics\.org)\/eml-[\d.]+)/.exec(
        head,
      );
    if (eml?.[1]) return eml[1];
    return extension === ".rdf" ? "application/rdf+xml" : "text/xml";
  }
  return FORMAT_BY_EXTENSION[extension] ?? "application/octet-stream";
}

function readHead(file: string, bytes: number): string {
  const fd = openSync(file, "r");
  try {
    const buffer = Buffer.alloc(bytes);
    return buffer.subarray(0, readSync(fd, buffer, 0, bytes, 0)).toString("utf8");
  } finally {
    closeSync(fd);
  }
}

/** The file's digest, with a progress line on files large enough to take a while. */
async function hashFile(file: string, key: string): Promise<{ hex: string; size: number }> {
  const hash = createHash(key);
  const progress = progressLine();
  const name = path.basename(file);
  let size = 0;
  try {
    for await (const chunk of createReadStream(file, { highWaterMark: 1 << 20 })) {
      hash.update(chunk as Buffer);
      size += (chunk as Buffer).length;
      progress.update(() => `checksum of ${name}: ${mib(size)} MiB read`);
    }
  } catch (error) {
    throw new OperatorError(`cannot read ${file}: ${(error as Error).message}`);
  }
  return { hex: hash.digest("hex"), size };
}
