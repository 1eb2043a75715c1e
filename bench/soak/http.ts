/**
 * One HTTP exchange of the soak: status, headers and either the body (small answers) or its SHA-1 and length
 * (objects, hashed as they stream). A request that takes longer than its timeout ends with status 0 ("timeout").
 */
import { createHash } from "node:crypto";
import http from "node:http";
import { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";

export interface Answer {
  status: number;
  headers: http.IncomingHttpHeaders;
  /** The body, up to `keep` bytes (the rest is hashed and counted, not kept). */
  body: string;
  sha1: string;
  bytes: number;
  /** "timeout" or a socket error code when no full answer came (status 0). */
  failure?: string;
}

export interface Exchange {
  method: string;
  url: string;
  headers?: Record<string, string>;
  body?: Buffer | string | AsyncIterable<Buffer>;
  agent?: http.Agent;
  timeoutMs?: number;
  /** Bytes of the body to keep as text (default 64 KiB). */
  keep?: number;
}

/** Without an agent of its own, a request gets a connection of its own: a hostile call never shares one. */
const ONE_CONNECTION_EACH = new http.Agent({ keepAlive: false });

export function exchange(x: Exchange): Promise<Answer> {
  const timeoutMs = x.timeoutMs ?? 60_000;
  const keep = x.keep ?? 64 * 1024;
  return new Promise((resolve) => {
    let settled = false;
    const done = (answer: Answer) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve(answer);
    };
    const failed = (failure: string) =>
      done({ status: 0, headers: {}, body: "", sha1: "", bytes: 0, failure });
    const request = http.request(x.url, {
      method: x.method,
      headers: x.headers,
      agent: x.agent ?? ONE_CONNECTION_EACH,
    });
    const timer = setTimeout(() => {
      failed("timeout");
      request.destroy();
    }, timeoutMs);
    request.on("error", (error: NodeJS.ErrnoException) => failed(error.code ?? error.message));
    request.on("response", (response) => {
      const hash = createHash("sha1");
      const kept: Buffer[] = [];
      let bytes = 0;
      response.on("data", (chunk: Buffer) => {
        hash.update(chunk);
        if (bytes < keep) kept.push(chunk.subarray(0, keep - bytes));
        bytes += chunk.length;
      });
      response.on("end", () =>
        done({
          status: response.statusCode ?? 0,
          headers: response.headers,
          body: Buffer.concat(kept).toString("utf8"),
          sha1: hash.digest("hex"),
          bytes,
        }),
      );
      response.on("error", (error: NodeJS.ErrnoException) => failed(error.code ?? error.message));
    });
    if (x.body === undefined || typeof x.body === "string" || Buffer.isBuffer(x.body)) request.end(x.body);
    else pipeline(Readable.from(x.body), request).catch(() => undefined);
  });
}

/** The `name` and `detailCode` of a DataONE error document, or undefined when the body is not one. */
export function dataoneError(body: string): { name: string; detailCode: string } | undefined {
  const match = /<error\b[^>]*>/.exec(body);
  if (!match) return undefined;
  const name = /\bname="([^"]+)"/.exec(match[0])?.[1];
  const detailCode = /\bdetailCode="([^"]+)"/.exec(match[0])?.[1];
  return name && detailCode ? { name, detailCode } : undefined;
}

/** The text of the first `<tag>` element (no nesting), XML entities of the identifier kind decoded. */
export function elementText(xml: string, tag: string): string | undefined {
  const match = new RegExp(`<${tag}(?:\\s[^>]*)?>([^<]*)</${tag}>`).exec(xml);
  return match?.[1]
    ?.replace(/&lt;/g, "<")
    .replace(/&gt;/g, ">")
    .replace(/&quot;/g, '"')
    .replace(/&amp;/g, "&");
}
