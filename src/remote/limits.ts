/**
 * Bounds on what another node (a peer of the federation, or an import's source) can make this node read or wait
 * for, shared by every caller of a remote node:
 *  - a document (system metadata, a Node document, a checksum, an error) is at most the node's
 *    `maxDocumentBytes`, the limit it keeps for the documents it accepts in requests; a list page (listObjects,
 *    getLogRecords, listNodes: up to 1,000 entries) at most LIST_DOCUMENTS times that. The read stops at the
 *    first byte past the limit, so a document that never ends costs the limit, not the memory of the process;
 *  - a call that reads a document ends within a deadline (headers and body together), so that a peer trickling
 *    one byte every few seconds (which no idle timeout notices) holds it for that long at most;
 *  - object bytes whose size is declared (the system metadata's) stop at the first byte past that size, before
 *    it is written anywhere, and must all arrive within a deadline that grows with the size
 *    (transferDeadlineMs).
 */
import { pipeline, type Readable, Transform, type TransformCallback } from "node:stream";
import { InvalidSystemMetadata, ServiceFailure } from "../errors/exceptions.ts";

/** Headers and the whole body of a document call, by default. */
export const DOCUMENT_DEADLINE_MS = 60_000;
/** The most bytes a Member Node reads of its CN's own documents (node list, subject info, token keys). */
export const CN_DOCUMENT_BYTES = 16 * 1024 * 1024;
/** A list page may be this many times a document's limit. */
export const LIST_DOCUMENTS = 16;
/** Object bytes get DOCUMENT_DEADLINE_MS plus their declared size at this rate. */
export const MIN_TRANSFER_BYTES_PER_SECOND = 256 * 1024;

export type DocumentKind = "document" | "list";

/** The most bytes a document of `kind` read from a peer may have. */
export function documentCap(config: { maxDocumentBytes: number }, kind: DocumentKind = "document"): number {
  return kind === "list" ? config.maxDocumentBytes * LIST_DOCUMENTS : config.maxDocumentBytes;
}

/** A remote answer broke a bound: too large, or too slow. Retrying may help (a ServiceFailure). */
export class RemoteLimitExceeded extends ServiceFailure {}

export function documentTooLarge(what: string, maxBytes: number, pid?: string): RemoteLimitExceeded {
  return new RemoteLimitExceeded(
    `${what} sent a document larger than ${maxBytes} bytes; this node reads no more than that from another node.`,
    pid ? { pid } : {},
  );
}

export function deadlinePassed(what: string, deadlineMs: number, pid?: string): RemoteLimitExceeded {
  return new RemoteLimitExceeded(
    `${what} did not send its whole answer within ${Math.round(deadlineMs / 1000)} s; the call was given up.`,
    pid ? { pid } : {},
  );
}

/** A signal that aborts a call (undici's `signal` option) when `deadlineMs` has passed. */
export function deadlineSignal(deadlineMs: number): AbortSignal {
  return AbortSignal.timeout(deadlineMs);
}

/**
 * The whole body as UTF-8 text, read as it arrives: fails with RemoteLimitExceeded (destroying the body, which
 * closes the connection) at the first chunk that takes it past `maxBytes`.
 */
export async function readCappedText(
  body: Readable,
  maxBytes: number,
  what: string,
  pid?: string,
): Promise<string> {
  const chunks: Buffer[] = [];
  let total = 0;
  for await (const chunk of body) {
    const bytes = Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk as Uint8Array);
    total += bytes.length;
    if (total > maxBytes) {
      const error = documentTooLarge(what, maxBytes, pid);
      body.destroy(error);
      throw error;
    }
    chunks.push(bytes);
  }
  return Buffer.concat(chunks, total).toString("utf8");
}

/** How long the bytes of an object of `declaredSize` may take in all: `baseMs` plus the size at 256 KiB/s. */
export function transferDeadlineMs(declaredSize: number, baseMs = DOCUMENT_DEADLINE_MS): number {
  return baseMs + Math.ceil((declaredSize / MIN_TRANSFER_BYTES_PER_SECOND) * 1000);
}

export interface TransferBounds {
  /** The system metadata's size: the byte past it fails the transfer (InvalidSystemMetadata). */
  declaredSize: number;
  /** What is read, for the descriptions ("GET https://mn.example.org/mn/v2/replica/x"). */
  what: string;
  pid?: string;
  /** Default transferDeadlineMs(declaredSize). */
  deadlineMs?: number;
}

/**
 * `source` passed on chunk by chunk, failing (and destroying `source`) at the first chunk that would take it past
 * the declared size, which is never passed on, so that whatever stages the result writes at most that size; and
 * failing when the whole has not arrived within the deadline (RemoteLimitExceeded).
 */
export function boundedTransfer(source: Readable, bounds: TransferBounds): Readable {
  const { declaredSize, what, pid } = bounds;
  // setTimeout takes at most 2^31 - 1 ms (24.8 days); any deadline longer is that.
  const deadlineMs = Math.min(bounds.deadlineMs ?? transferDeadlineMs(declaredSize), 2 ** 31 - 1);
  let received = 0;
  const guard = new Transform({
    transform(chunk: Buffer, _encoding: BufferEncoding, done: TransformCallback) {
      received += chunk.length;
      if (received > declaredSize) {
        done(
          new InvalidSystemMetadata(
            `${what} sent more than the ${declaredSize} bytes the system metadata gives; the transfer was stopped.`,
            pid ? { pid } : {},
          ),
        );
        return;
      }
      done(null, chunk);
    },
  });
  const timer = setTimeout(() => guard.destroy(deadlinePassed(what, deadlineMs, pid)), deadlineMs);
  timer.unref();
  guard.once("close", () => clearTimeout(timer));
  // The source is destroyed when the guard fails, and the guard when the source does.
  pipeline(source, guard, () => clearTimeout(timer));
  return guard;
}
