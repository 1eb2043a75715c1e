/**
 * Multipart bodies. "Simple values are UTF-8 text parts named after the parameter. XML structures are UTF-8 XML
 * file parts named after the parameter. Bytes are a file part." (API text, Transport 2). Parts may come in any
 * order; the object part is streamed into the store (hashed in the same pass), everything else is small and
 * buffered with a limit: each part at most what the operation needs (a document: config maxDocumentBytes; a simple
 * value: SIMPLE_VALUE_BYTES), all requests together at most config maxBufferedTextBytes (see
 * plugins/request-bodies.ts). A client that disconnects mid-upload leaves no temp file: staging is aborted; so does
 * one that sends nothing for the upload idle timeout (InvalidRequest, then the connection is closed).
 */
import type { FastifyRequest } from "fastify";
import { detailCodeFor, UNLISTED_DETAIL_CODE } from "../errors/catalogue.ts";
import { InvalidRequest, InvalidSystemMetadata } from "../errors/exceptions.ts";
import { bytesWanted, type ChangeSubscribers } from "../objects/changes.ts";
import { stageHolding } from "../objects/held-bytes.ts";
import type { ObjectStore, StagedObject } from "../store/types.ts";
import { watchIdleBody } from "./body-drain.ts";

declare module "fastify" {
  interface FastifyInstance {
    /** Milliseconds a multipart body may send nothing before it is ended (setting uploadIdleTimeout). */
    uploadIdleMs: number;
  }
}

/** Upper bound for a simple value part (an identifier, a scheme, a subject, a status). */
export const SIMPLE_VALUE_BYTES = 8 * 1024;

export interface MultipartOptions {
  store?: ObjectStore;
  /** Name of the part holding object bytes. */
  objectPart?: string;
  /** The checksum algorithm to compute besides MD5/SHA-1/SHA-256, when known from parts already read. */
  algorithmHint?: (parts: ReadonlyMap<string, string>) => string | undefined;
  /** The object's size, when known from parts already read (a hint for the store's part size). */
  sizeHint?: (parts: ReadonlyMap<string, string>) => number | undefined;
  /** Most bytes of the object part to keep in memory for the search index (src/objects/held-bytes.ts). */
  holdBytes?: (parts: ReadonlyMap<string, string>) => number;
  /** Largest buffered part, bytes; default: the node's document limit (config maxDocumentBytes). */
  maxPart?: number;
  /** Smaller limits for named parts, e.g. { pid: SIMPLE_VALUE_BYTES }. */
  partLimits?: Readonly<Record<string, number>>;
}

export interface MultipartBody {
  parts: Map<string, string>;
  staged: StagedObject | undefined;
}

export async function readMultipart(
  request: FastifyRequest,
  options: MultipartOptions = {},
): Promise<MultipartBody> {
  if (!request.isMultipart()) throw new InvalidRequest("The request body must be multipart/form-data.");
  const parts = new Map<string, string>();
  let staged: StagedObject | undefined;
  let current: { destroy(error?: Error): void } | undefined;
  const abort = new AbortController();
  const onClose = () => {
    if (!request.raw.complete) abort.abort(new Error("client disconnected"));
  };
  request.raw.once("close", onClose);
  const maxPart = options.maxPart ?? request.textLimits.document;
  const limitOf = (name: string) => Math.min(options.partLimits?.[name] ?? maxPart, maxPart);
  const idleMs = request.server.uploadIdleMs;
  let stalled: (error: Error) => void = () => undefined;
  const stall = new Promise<never>((_, reject) => {
    stalled = reject;
  });
  const stopWatching = watchIdleBody(request.raw, idleMs, () => {
    const error = new InvalidRequest(
      `The request body sent nothing for ${idleMs / 1000} s; the upload was ended and nothing was stored.`,
    );
    abort.abort(error);
    current?.destroy(error);
    stalled(error);
  });
  const read = (async () => {
    for await (const part of request.parts({ limits: { fieldSize: maxPart + 1 } })) {
      const name = part.fieldname;
      if (parts.has(name) || (name === options.objectPart && staged)) {
        throw new InvalidRequest(`The multipart part "${name}" is given more than once.`);
      }
      if (part.type === "file" && name === options.objectPart && options.store) {
        const algorithm = options.algorithmHint?.(parts);
        const expectedSize = options.sizeHint?.(parts);
        current = part.file;
        staged = await stageHolding(
          options.store,
          part.file,
          {
            ...(algorithm ? { algorithm } : {}),
            ...(expectedSize !== undefined ? { expectedSize } : {}),
            signal: abort.signal,
          },
          options.holdBytes?.(parts) ?? 0,
        );
      } else if (part.type === "file") {
        current = part.file;
        parts.set(name, await readTextPart(request, part.file, name, limitOf(name)));
      } else {
        const value = String(part.value);
        const size = Buffer.byteLength(value);
        if (part.valueTruncated || size > limitOf(name)) throw partTooLarge(request, name, limitOf(name));
        request.textLimits.reserve(size);
        parts.set(name, value);
      }
      current = undefined;
    }
  })();
  try {
    await Promise.race([read, stall]);
  } catch (error) {
    // A stalled read ends once its staging has removed its temp file (it was aborted), or never (waiting between
    // parts): it is given a moment, not more.
    await Promise.race([read.catch(() => undefined), delay(1000)]);
    await staged?.discard();
    throw error;
  } finally {
    stopWatching();
    request.raw.off("close", onClose);
  }
  return { parts, staged };
}

function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms).unref());
}

/** A text part, at most `limit` bytes, counted against the node's buffered text budget as it arrives. */
export async function readTextPart(
  request: FastifyRequest,
  stream: AsyncIterable<Buffer>,
  name: string,
  limit: number,
): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of stream) {
    size += chunk.length;
    if (size > limit) throw partTooLarge(request, name, limit);
    request.textLimits.reserve(chunk.length);
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString("utf8");
}

/** A system metadata part is InvalidSystemMetadata where the operation lists it; any other part InvalidRequest. */
function partTooLarge(request: FastifyRequest, name: string, limit: number): Error {
  const description = `The multipart part "${name}" is larger than this node accepts (${limit} bytes).`;
  const method = request.routeOptions.config?.apiMethod ?? "";
  return name === "sysmeta" && detailCodeFor(method, "InvalidSystemMetadata") !== UNLISTED_DETAIL_CODE
    ? new InvalidSystemMetadata(description)
    : new InvalidRequest(description);
}

/** A part that must be present. */
export function requirePart(body: MultipartBody, name: string): string {
  const value = body.parts.get(name);
  if (value === undefined) throw new InvalidRequest(`The multipart part "${name}" is missing.`);
  return value;
}

/** The checksum algorithm named in a buffered sysmeta part, read without a full parse. */
export function sysmetaAlgorithm(parts: ReadonlyMap<string, string>): string | undefined {
  const xml = parts.get("sysmeta");
  return xml ? /<(?:\w+:)?checksum\b[^>]*\balgorithm\s*=\s*["']([^"']+)["']/.exec(xml)?.[1] : undefined;
}

/** The size named in a buffered sysmeta part, read without a full parse (the full parse checks it later). */
export function sysmetaSize(parts: ReadonlyMap<string, string>): number | undefined {
  const digits = /<(?:\w+:)?size>\s*(\d{1,16})\s*<\//.exec(parts.get("sysmeta") ?? "")?.[1];
  return digits === undefined ? undefined : Number(digits);
}

/**
 * What the write's subscribers (the search index) want kept of the object part, by the formatId of a sysmeta part
 * read before it.
 */
export function holdForSubscribers(
  subscribers: ChangeSubscribers,
): (parts: ReadonlyMap<string, string>) => number {
  return (parts) => bytesWanted(subscribers, sysmetaFormatId(parts));
}

/** The formatId of a system metadata part read before the object part, else undefined. */
function sysmetaFormatId(parts: ReadonlyMap<string, string>): string | undefined {
  const xml = parts.get("sysmeta");
  return xml ? /<(?:\w+:)?formatId>\s*([^<]*?)\s*<\//.exec(xml)?.[1] : undefined;
}
