/**
 * What a failed tus request answers. The upload library's own refusals (404 unknown upload, 409 wrong offset,
 * 413 too large, ...) keep their status and text: tus clients act on them. Any other failure is the node's: it is
 * logged and answered as a DataONE exception whose description never repeats the error's message (a file
 * system error names the node's files). A full disk is InsufficientResources ("load, storage, or size prevents
 * the request", API text, Errors), as for an inline create.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import { detailCodeFor } from "../errors/catalogue.ts";
import type { ExceptionName } from "../errors/exceptions.ts";
import { EXCEPTION_STATUS } from "../errors/exceptions.ts";
import { isOutOfSpace } from "../errors/out-of-space.ts";
import { serializeError } from "../types/index.ts";

/** The API method whose detail codes upload failures carry (uploads are the first half of MNStorage.create). */
const UPLOAD_METHOD = "MNStorage.create";

/** Where failures are logged (a request's logger). */
export interface FailureLog {
  warn(message: string): void;
  error(details: { err: unknown }, message: string): void;
}

export interface TusAnswer {
  status_code: number;
  body: string;
}

/** A request body that sent nothing for the upload idle timeout, ended by the node. */
export class StalledBody extends Error {
  constructor(readonly idleMs: number) {
    super(`The request body sent nothing for ${idleMs / 1000} s.`);
  }
}

/** A refusal made by the library or by the node's own hooks: `{ status_code, body }`. */
export function isTusAnswer(error: unknown): error is TusAnswer {
  const answer = error as Partial<TusAnswer> | undefined;
  return typeof answer?.status_code === "number" && typeof answer.body === "string";
}

/** A DataONE exception as a tus answer (XML body; the content type is set on `res`). */
export function exceptionAnswer(
  res: ServerResponse,
  exception: ExceptionName,
  description: string,
  nodeId: string,
): TusAnswer {
  if (!res.headersSent) res.setHeader("Content-Type", "text/xml; charset=utf-8");
  const status = EXCEPTION_STATUS[exception];
  const body = serializeError({
    exception,
    errorCode: status,
    detailCode: detailCodeFor(UPLOAD_METHOD, exception),
    description,
    nodeId,
  });
  return { status_code: status, body };
}

/** tus's `onResponseError`: undefined keeps the library's answer. */
export function answerFailure(
  _req: IncomingMessage,
  res: ServerResponse,
  error: unknown,
  nodeId: string,
  log: FailureLog | undefined,
): TusAnswer | undefined {
  if (isTusAnswer(error)) return undefined;
  if (error instanceof StalledBody) {
    return exceptionAnswer(
      res,
      "InvalidRequest",
      `The request body sent nothing for ${error.idleMs / 1000} s; the request was ended. The bytes that arrived before are kept: continue from the offset a HEAD request gives.`,
      nodeId,
    );
  }
  if (isOutOfSpace(error)) {
    log?.warn(`no space left to store an upload's bytes: ${(error as Error).message}`);
    return exceptionAnswer(
      res,
      "InsufficientResources",
      "The node has no space left for the upload's bytes; what arrived before is kept, send the rest later.",
      nodeId,
    );
  }
  log?.error({ err: error }, "unexpected error in an upload request");
  return exceptionAnswer(
    res,
    "ServiceFailure",
    "The node failed to complete the upload request; the failure is logged.",
    nodeId,
  );
}
