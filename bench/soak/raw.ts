/**
 * Hostile clients on raw sockets, where an HTTP client library would not behave badly enough:
 * - oversized anonymous multipart bodies (a form field of tens of MiB) on generateIdentifier and
 *   updateSystemMetadata: generateIdentifier's "NotAuthorized:2192 (no write permission)" (or InvalidToken), 401,
 *   and the node should answer without reading the body into memory;
 * - stalled uploads: a create's headers and part of its body, then nothing; the node must close the connection
 *   within its idle timeout (the soak's bound) and store nothing.
 */
import net from "node:net";
import { Content, MULTIPART, multipart, sysmetaXml, uniqueId } from "./bodies.ts";
import { dataoneError, exchange } from "./http.ts";
import type { Tally } from "./tally.ts";

const MIB = 1 << 20;
/** How long past the bound the soak waits before closing a stalled upload itself. */
const GRACE_SECONDS = 15;
const FILL = Buffer.alloc(64 * 1024, 0x61);

interface RawAnswer {
  status: number;
  failure?: string;
  head: string;
  body: string;
  /** Body bytes the client had written when the first answer byte came. */
  writtenAtAnswer: number;
}

/** An anonymous multipart body whose one field holds `mib` MiB, to /v2/generate or /v2/meta. */
export async function oversized(
  baseUrl: string,
  target: "generate" | "meta",
  mib: number,
  tally: Tally,
): Promise<void> {
  const kind = `oversized /${target}`;
  const field = target === "generate" ? "scheme" : "sysmeta";
  const head = Buffer.from(
    `--${BOUNDARY_OF(MULTIPART)}\r\nContent-Disposition: form-data; name="${field}"\r\n\r\n`,
  );
  const tail = Buffer.from(`\r\n--${BOUNDARY_OF(MULTIPART)}--\r\n`);
  const size = mib * MIB;
  const url = new URL(`${baseUrl}/v2/${target}`);
  const method = target === "generate" ? "POST" : "PUT";
  const request =
    `${method} ${url.pathname} HTTP/1.1\r\nHost: ${url.host}\r\nContent-Type: ${MULTIPART}\r\n` +
    `Content-Length: ${head.length + size + tail.length}\r\n\r\n`;
  async function* body() {
    yield head;
    for (let sent = 0; sent < size; sent += FILL.length)
      yield FILL.subarray(0, Math.min(FILL.length, size - sent));
    yield tail;
  }
  const answer = await rawExchange(url, request, body(), 60_000);
  tally.count(kind);
  tally.status(kind, answer);
  if (answer.status > 0 && answer.writtenAtAnswer < size) tally.refusedEarly++;
  const error = dataoneError(answer.body);
  if (answer.status !== 401 || !error || !["NotAuthorized", "InvalidToken"].includes(error.name)) {
    tally.problem(
      "hostile",
      kind,
      `anonymous ${mib} MiB body: expected 401 NotAuthorized or InvalidToken`,
      answer.status
        ? `${answer.head.split("\r\n")[0]} ${answer.body.slice(0, 600)}`
        : `no answer: ${answer.failure}`,
    );
  }
}

function BOUNDARY_OF(contentType: string): string {
  return contentType.slice(contentType.indexOf("boundary=") + "boundary=".length);
}

/** Write `request` then `body` (with backpressure) until done or answered; resolve with the answer. */
function rawExchange(
  url: URL,
  request: string,
  body: AsyncIterable<Buffer>,
  timeoutMs: number,
): Promise<RawAnswer> {
  return new Promise((resolve) => {
    const socket = net.connect(Number(url.port), url.hostname);
    let received = "";
    let written = 0;
    let writtenAtAnswer = -1;
    let settled = false;
    const finish = (failure?: string) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      socket.destroy();
      const split = received.indexOf("\r\n\r\n");
      const status = Number(/^HTTP\/1\.[01] (\d{3})/.exec(received)?.[1] ?? 0);
      resolve({
        status,
        ...(status === 0 ? { failure: failure ?? "closed" } : {}),
        head: split < 0 ? received : received.slice(0, split),
        body: split < 0 ? "" : received.slice(split + 4),
        writtenAtAnswer: writtenAtAnswer < 0 ? written : writtenAtAnswer,
      });
    };
    const timer = setTimeout(() => finish("timeout"), timeoutMs);
    socket.on("data", (chunk: Buffer) => {
      if (writtenAtAnswer < 0) writtenAtAnswer = written;
      if (received.length < 64 * 1024) received += chunk.toString("latin1");
      if (answerComplete(received)) finish();
    });
    socket.on("error", (error: NodeJS.ErrnoException) => finish(error.code ?? error.message));
    socket.on("close", () => finish());
    socket.once("connect", async () => {
      socket.write(request);
      for await (const chunk of body) {
        if (settled || writtenAtAnswer >= 0) return;
        written += chunk.length;
        if (!socket.write(chunk)) await drained(socket);
      }
    });
  });
}

/** Resolves once `socket` can take more data, or has closed. */
function drained(socket: net.Socket): Promise<void> {
  return new Promise((resolve) => {
    const go = () => {
      socket.off("drain", go);
      socket.off("close", go);
      resolve();
    };
    socket.on("drain", go);
    socket.on("close", go);
  });
}

/** Whether `text` holds a whole HTTP answer with a Content-Length body. */
function answerComplete(text: string): boolean {
  const split = text.indexOf("\r\n\r\n");
  if (split < 0) return false;
  const length = /\r\ncontent-length: *(\d+)/i.exec(text.slice(0, split))?.[1];
  return length !== undefined && Buffer.byteLength(text.slice(split + 4), "latin1") >= Number(length);
}

interface OpenStall {
  kind: string;
  pid: string;
  since: number;
  closed: Promise<void>;
  abandon(): void;
}

/** Stalled uploads, at most `limit` open at once; each is watched until the node closes it. */
export class StalledUploads {
  private readonly open = new Set<OpenStall>();

  constructor(
    private readonly baseUrl: string,
    private readonly token: string,
    private readonly subject: string,
    private readonly boundSeconds: number,
    private readonly tally: Tally,
    private readonly limit = 4,
  ) {}

  /** Start one more stalled upload unless `limit` are open; it settles by itself. */
  start(anonymous: boolean): void {
    if (this.open.size >= this.limit) return;
    const pid = uniqueId("soak-stalled");
    const content = new Content(8 * MIB);
    const body = multipart(
      { pid, sysmeta: sysmetaXml({ pid, size: content.size, sha1: content.sha1, submitter: this.subject }) },
      content,
    );
    const url = new URL(`${this.baseUrl}/v2/object`);
    const socket = net.connect(Number(url.port), url.hostname);
    const auth = anonymous ? "" : `Authorization: Bearer ${this.token}\r\n`;
    const since = Date.now();
    let answered = "";
    const closed = new Promise<void>((resolve) => socket.once("close", () => resolve()));
    socket.on("error", () => undefined);
    socket.on("data", (chunk: Buffer) => {
      if (!answered) answered = chunk.toString("latin1").split("\r\n")[0] ?? "";
    });
    socket.once("connect", async () => {
      socket.write(
        `POST ${url.pathname} HTTP/1.1\r\nHost: ${url.host}\r\n${auth}Content-Type: ${MULTIPART}\r\nContent-Length: ${body.length}\r\n\r\n`,
      );
      let sent = 0;
      for await (const chunk of body.body) {
        if (sent > 256 * 1024 || socket.destroyed) break;
        socket.write(chunk);
        sent += chunk.length;
      }
    });
    const kind = anonymous ? "stalled upload (anonymous)" : "stalled upload";
    let gaveUp = false;
    const deadline = setTimeout(
      () => {
        gaveUp = true;
        socket.destroy();
      },
      (this.boundSeconds + GRACE_SECONDS) * 1000,
    );
    const stall: OpenStall = { kind, pid, since, closed, abandon: () => socket.destroy() };
    this.open.add(stall);
    this.tally.count(kind);
    void closed.then(async () => {
      clearTimeout(deadline);
      if (!this.open.delete(stall)) return; // abandoned at the end of the soak
      const seconds = (Date.now() - since) / 1000;
      const status = Number(/ (\d{3})/.exec(answered)?.[1] ?? 0);
      this.tally.status(kind, {
        status,
        failure: gaveUp ? "still open, closed by the soak" : "closed without answer",
      });
      if (gaveUp) this.tally.stallsAbandoned++;
      else this.tally.stallSeconds.push(seconds);
      if (seconds > this.boundSeconds) {
        this.tally.problem(
          "hostile",
          kind,
          `node kept a stalled upload open ${seconds.toFixed(0)} s`,
          `bound ${this.boundSeconds} s; ${answered || "no answer"}${gaveUp ? "; the soak closed it" : ""}`,
        );
      }
      const meta = await exchange({
        method: "GET",
        url: `${this.baseUrl}/v2/meta/${encodeURIComponent(pid)}`,
        headers: { authorization: `Bearer ${this.token}` },
      });
      if (meta.status !== 404)
        this.tally.problem("integrity", kind, `stalled upload ${pid} was stored`, `HTTP ${meta.status}`);
    });
  }

  /** At the end of the soak: those open beyond the bound are failures, the others are counted as still open. */
  finish(): void {
    for (const stall of this.open) {
      const seconds = (Date.now() - stall.since) / 1000;
      if (seconds > this.boundSeconds) {
        this.tally.problem(
          "hostile",
          stall.kind,
          `node kept a stalled upload open ${seconds.toFixed(0)} s`,
          `bound ${this.boundSeconds} s; still open at the end`,
        );
      } else this.tally.stallsOpenAtEnd++;
    }
    const open = [...this.open];
    this.open.clear();
    for (const stall of open) stall.abandon();
  }
}
