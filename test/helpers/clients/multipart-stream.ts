/**
 * A multipart request whose parts are streamed as the server reads them (nothing held in the test's memory), the
 * way a hostile client sends a huge body. The answer is taken as soon as the server sends it, even mid-body; the
 * rest of the body is then abandoned. With `holdHalfway`, the client stops once half the body is sent and waits
 * for the answer (up to HOLD_MS) before sending the rest: an answer that needs no more of the body then always
 * comes with `sent < total`, however the two processes are scheduled; one that needs the whole body does not.
 */
import { Agent, request as httpRequest } from "node:http";

export interface StreamedPart {
  name: string;
  /** A file part (filename set) or a plain form field. */
  file: boolean;
  bytes: number;
}

export interface StreamedAnswer {
  status: number;
  text: string;
  /** How many body bytes had been written when the answer came. */
  sent: number;
  /** The total body size the request announced. */
  total: number;
}

const BOUNDARY = "----d1nodeStreamedBoundary";
const CHUNK = Buffer.alloc(64 * 1024, "a");
/** How long a held client waits for the answer before it sends the rest of the body. */
const HOLD_MS = 30_000;

export function streamMultipart(
  url: string,
  method: string,
  parts: readonly StreamedPart[],
  headers: Record<string, string> = {},
  holdHalfway = false,
): Promise<StreamedAnswer> {
  const heads = parts.map((p) =>
    Buffer.from(
      `--${BOUNDARY}\r\nContent-Disposition: form-data; name="${p.name}"` +
        `${p.file ? `; filename="${p.name}.xml"\r\nContent-Type: text/xml` : ""}\r\n\r\n`,
    ),
  );
  const tail = Buffer.from(`\r\n--${BOUNDARY}--\r\n`);
  const total =
    parts.reduce((sum, p, i) => sum + (heads[i]?.length ?? 0) + p.bytes + (i > 0 ? 2 : 0), 0) + tail.length;
  return new Promise((resolve, reject) => {
    let sent = 0;
    let answered = false;
    let onAnswer = () => {};
    const answer = new Promise<void>((done) => {
      onAnswer = done;
    });
    let hold = holdHalfway ? Math.floor(total / 2) : Number.POSITIVE_INFINITY;
    // Its own keep-alive connection (as browsers and client libraries keep theirs), closed afterwards: one whose
    // body was abandoned cannot carry another request.
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    const req = httpRequest(url, {
      agent,
      method,
      headers: {
        ...headers,
        "content-type": `multipart/form-data; boundary=${BOUNDARY}`,
        "content-length": String(total),
      },
    });
    req.on("response", (response) => {
      answered = true;
      onAnswer();
      const chunks: Buffer[] = [];
      response.on("data", (c: Buffer) => chunks.push(c));
      response.on("end", () => {
        resolve({
          status: response.statusCode ?? 0,
          text: Buffer.concat(chunks).toString("utf8"),
          sent,
          total,
        });
        req.destroy();
        agent.destroy();
      });
    });
    req.on("error", (error) => {
      if (!answered) reject(error);
    });
    const write = async () => {
      const put = async (buffer: Buffer) => {
        if (sent >= hold) {
          hold = Number.POSITIVE_INFINITY;
          await Promise.race([answer, new Promise((done) => setTimeout(done, HOLD_MS).unref())]);
          if (answered) return;
        }
        await new Promise<void>((done) => {
          sent += buffer.length;
          if (req.write(buffer)) done();
          else req.once("drain", done);
        });
      };
      for (const [i, part] of parts.entries()) {
        if (i > 0) await put(Buffer.from("\r\n"));
        await put(heads[i] as Buffer);
        for (let left = part.bytes; left > 0 && !answered && !req.destroyed; left -= CHUNK.length) {
          await put(left >= CHUNK.length ? CHUNK : CHUNK.subarray(0, left));
        }
        if (answered || req.destroyed) return;
      }
      await put(tail);
      req.end();
    };
    write().catch(() => {});
  });
}
