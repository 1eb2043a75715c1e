/**
 * HTTPS calls with a client certificate whose bodies are streamed, for objects too large to hold: a multipart
 * request whose file part comes from a stream, and a GET whose body is handed on chunk by chunk.
 */
import { createHash } from "node:crypto";
import type { IncomingHttpHeaders } from "node:http";
import https from "node:https";
import { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import type { TlsCaller } from "./tls-client.ts";

export interface StreamPart {
  name: string;
  /** A file part: its file name and media type. */
  file?: { fileName: string; type: string };
  /** The part's bytes: small ones given whole, large ones as a stream of `size` bytes. */
  body: Buffer | { size: number; stream: () => Readable };
}

const BOUNDARY = "----d1nodeLargeBoundary";

function agentOf(caller: TlsCaller): https.Agent {
  return new https.Agent({
    ca: caller.ca,
    ...(caller.cert ? { cert: caller.cert.cert, key: caller.cert.key } : {}),
  });
}

/** Sends a multipart/form-data request (Content-Length computed up front); resolves with status and body text. */
export async function streamMultipartTls(
  caller: TlsCaller,
  method: string,
  path: string,
  parts: readonly StreamPart[],
): Promise<{ status: number; body: string }> {
  const heads = parts.map((part, i) =>
    Buffer.from(
      `${i > 0 ? "\r\n" : ""}--${BOUNDARY}\r\nContent-Disposition: form-data; name="${part.name}"` +
        (part.file ? `; filename="${part.file.fileName}"\r\nContent-Type: ${part.file.type}` : "") +
        "\r\n\r\n",
    ),
  );
  const tail = Buffer.from(`\r\n--${BOUNDARY}--\r\n`);
  const sizeOf = (body: StreamPart["body"]) => (Buffer.isBuffer(body) ? body.length : body.size);
  const total = parts.reduce(
    (sum, part, i) => sum + (heads[i] as Buffer).length + sizeOf(part.body),
    tail.length,
  );
  const body = Readable.from(
    (async function* () {
      for (const [i, part] of parts.entries()) {
        yield heads[i] as Buffer;
        if (Buffer.isBuffer(part.body)) yield part.body;
        else yield* part.body.stream();
      }
      yield tail;
    })(),
    { objectMode: false },
  );
  const agent = agentOf(caller);
  try {
    return await new Promise((resolve, reject) => {
      const request = https.request(new URL(`${caller.baseUrl}${path}`), {
        method,
        agent,
        headers: {
          "content-type": `multipart/form-data; boundary=${BOUNDARY}`,
          "content-length": String(total),
        },
      });
      request.on("response", (response) => {
        const chunks: Buffer[] = [];
        response.on("data", (chunk: Buffer) => chunks.push(chunk));
        response.on("end", () =>
          resolve({ status: response.statusCode ?? 0, body: Buffer.concat(chunks).toString("utf8") }),
        );
        response.on("error", reject);
      });
      request.on("error", reject);
      pipeline(body, request).catch(reject);
    });
  } finally {
    agent.destroy();
  }
}

export interface StreamedGet {
  status: number;
  headers: IncomingHttpHeaders;
  bytes: number;
  md5: string;
}

/** GET whose body is counted and hashed (MD5) as it arrives, each chunk also handed to `onChunk`. */
export async function streamGetTls(
  caller: TlsCaller,
  path: string,
  headers: Record<string, string> = {},
  onChunk: (chunk: Buffer) => void | Promise<void> = () => {},
): Promise<StreamedGet> {
  const agent = agentOf(caller);
  try {
    return await new Promise((resolve, reject) => {
      https
        .get(new URL(`${caller.baseUrl}${path}`), { agent, headers }, (response) => {
          const md5 = createHash("md5");
          let bytes = 0;
          response.on("error", reject);
          (async () => {
            for await (const chunk of response) {
              md5.update(chunk as Buffer);
              bytes += (chunk as Buffer).length;
              await onChunk(chunk as Buffer);
            }
            resolve({
              status: response.statusCode ?? 0,
              headers: response.headers,
              bytes,
              md5: md5.digest("hex"),
            });
          })().catch(reject);
        })
        .on("error", reject);
    });
  } finally {
    agent.destroy();
  }
}
