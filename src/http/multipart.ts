/**
 * Multipart bodies. "Simple values are UTF-8 text parts named after the parameter. XML structures are UTF-8 XML
 * file parts named after the parameter. Bytes are a file part." (API text, Transport 2). Parts may come in any
 * order; the object part is streamed into the store (hashed in the same pass), everything else is small and
 * buffered with a limit. A client that disconnects mid-upload leaves no temp file: staging is aborted; so does
 * one that sends nothing for the upload idle timeout (InvalidRequest, then the connection is closed).
 */
import type { FastifyRequest } from "fastify";
import { InvalidRequest } from "../errors/exceptions.ts";
import type { ObjectStore, StagedObject } from "../store/types.ts";
import { watchIdleBody } from "./body-drain.ts";

declare module "fastify" {
  interface FastifyInstance {
    /** Milliseconds a multipart body may send nothing before it is ended (setting uploadIdleTimeout). */
    uploadIdleMs: number;
  }
}

/** Upper bound for a buffered (non-object) part, e.g. a system metadata document. */
export const MAX_BUFFERED_PART = 16 * 1024 * 1024;

export interface MultipartOptions {
  store?: ObjectStore;
  /** Name of the part holding object bytes. */
  objectPart?: string;
  /** The checksum algorithm to compute besides MD5/SHA-1/SHA-256, when known from parts already read. */
  algorithmHint?: (parts: ReadonlyMap<string, string>) => string | undefined;
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
    for await (const part of request.parts()) {
      const name = part.fieldname;
      if (parts.has(name) || (name === options.objectPart && staged)) {
        throw new InvalidRequest(`The multipart part "${name}" is given more than once.`);
      }
      if (part.type === "file" && name === options.objectPart && options.store) {
        const algorithm = options.algorithmHint?.(parts);
        current = part.file;
        staged = await options.store.stage(part.file, {
          ...(algorithm ? { algorithm } : {}),
          signal: abort.signal,
        });
      } else if (part.type === "file") {
        current = part.file;
        parts.set(name, await bufferedText(part.file, name));
      } else {
        parts.set(name, String(part.value));
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

async function bufferedText(stream: AsyncIterable<Buffer>, name: string): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of stream) {
    size += chunk.length;
    if (size > MAX_BUFFERED_PART) {
      throw new InvalidRequest(`The multipart part "${name}" is larger than ${MAX_BUFFERED_PART} bytes.`);
    }
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString("utf8");
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
