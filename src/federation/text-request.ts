/**
 * A bodiless request whose whole answer is wanted as text (getSystemMetadata, listObjects, a node's document),
 * dispatched with a handler that collects the body's bytes: past undici's `request`, which makes an async
 * resource, parses every header and builds a readable stream per response before `text()` drains it (a harvest
 * makes one such request per object). The dispatcher's own timeouts apply as for `request`: headersTimeout until
 * the headers arrive, bodyTimeout between the body's chunks.
 */
import type { Dispatcher } from "undici";

export interface TextAnswer {
  statusCode: number;
  text: string;
}

export interface TextRequest {
  method: Dispatcher.HttpMethod;
  headers: Record<string, string>;
  headersTimeout: number;
  bodyTimeout: number;
}

/** The answer's status and body; fails (as `request` would) when the node cannot be reached or stops sending. */
export function requestText(dispatcher: Dispatcher, url: string, options: TextRequest): Promise<TextAnswer> {
  const { origin, pathname, search } = new URL(url);
  return new Promise((resolve, reject) => {
    let statusCode = 0;
    const chunks: Buffer[] = [];
    const handler: Dispatcher.DispatchHandler = {
      onConnect: () => undefined,
      onHeaders: (status) => {
        if (status >= 200) statusCode = status; // 1xx answers are interim: the final one follows
        return true;
      },
      onData: (chunk) => {
        if (statusCode !== 0) chunks.push(chunk);
        return true;
      },
      onComplete: () => resolve({ statusCode, text: Buffer.concat(chunks).toString("utf8") }),
      onError: reject,
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
