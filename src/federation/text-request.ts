/**
 * A bodiless request whose whole answer is wanted as text (getSystemMetadata, listObjects, a node's document),
 * dispatched with a handler that collects the body's bytes: past undici's `request`, which makes an async
 * resource, parses every header and builds a readable stream per response before `text()` drains it (a harvest
 * makes one such request per object). The dispatcher's own timeouts apply as for `request`: headersTimeout until
 * the headers arrive, bodyTimeout between the body's chunks; besides, the whole answer must arrive within
 * `deadlineMs` and hold at most `maxBytes` (src/remote/limits.ts), else the request is aborted (its
 * connection closed) and fails with RemoteLimitExceeded.
 */
import type { Dispatcher } from "undici";
import { deadlinePassed, documentTooLarge } from "../remote/limits.ts";

export interface TextAnswer {
  statusCode: number;
  text: string;
}

export interface TextRequest {
  method: Dispatcher.HttpMethod;
  headers: Record<string, string>;
  headersTimeout: number;
  bodyTimeout: number;
  /** The most bytes the body may have. */
  maxBytes: number;
  /** Headers and body together. */
  deadlineMs: number;
}

/** The answer's status and body; fails (as `request` would) when the node cannot be reached or stops sending. */
export function requestText(dispatcher: Dispatcher, url: string, options: TextRequest): Promise<TextAnswer> {
  const { origin, pathname, search } = new URL(url);
  const what = `${options.method} ${url}`;
  return new Promise((resolve, reject) => {
    let statusCode = 0;
    let received = 0;
    const chunks: Buffer[] = [];
    let abort: ((reason?: Error) => void) | undefined;
    let failure: Error | undefined;
    const stop = (error: Error) => {
      failure ??= error;
      if (abort) abort(error);
      else reject(error);
    };
    const timer = setTimeout(() => stop(deadlinePassed(what, options.deadlineMs)), options.deadlineMs);
    timer.unref();
    const handler: Dispatcher.DispatchHandler = {
      onConnect: (abortRequest) => {
        abort = abortRequest;
        if (failure) abortRequest(failure);
      },
      onHeaders: (status) => {
        if (status >= 200) statusCode = status; // 1xx answers are interim: the final one follows
        return true;
      },
      onData: (chunk) => {
        if (statusCode === 0) return true;
        received += chunk.length;
        if (received > options.maxBytes) {
          stop(documentTooLarge(what, options.maxBytes));
          return false;
        }
        chunks.push(chunk);
        return true;
      },
      onComplete: () => {
        clearTimeout(timer);
        resolve({ statusCode, text: Buffer.concat(chunks).toString("utf8") });
      },
      onError: (error) => {
        clearTimeout(timer);
        reject(failure ?? error);
      },
    };
    dispatcher.dispatch(
      {
        origin,
        path: `${pathname}${search}`,
        method: options.method,
        headers: options.headers,
        headersTimeout: options.headersTimeout,
        bodyTimeout: options.bodyTimeout,
      },
      handler,
    );
  });
}
