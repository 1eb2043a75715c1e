/**
 * The node an import copies from: any DataONE Member Node (GMN, Metacat, d1node), v2 API when it has one, else
 * v1. Calls carry the operator's credentials: a bearer token ("Authorization: Bearer", as DataONE's clients send
 * the CN-issued token), or a client certificate given to the TLS handshake. A remote DataONE exception comes back
 * as that exception (its error document parsed); a node that cannot be reached is SourceUnreachable, one that
 * answers something else a ServiceFailure that says so.
 *
 * The source is not trusted to be well-behaved: every document it answers is read up to a cap (a listing or log
 * page `maxPageBytes`, any other document `maxDocumentBytes`) and every call has an overall deadline
 * (`deadlineMs`; an object's bytes that plus the time its declared size takes at `minBytesPerSecond`), besides
 * the timeouts on late headers and a body that stops delivering. `signal` stops every call at once (Ctrl-C).
 */
import { readFileSync } from "node:fs";
import { Readable } from "node:stream";
import { Agent, type Dispatcher, request } from "undici";
import {
  D1Error,
  type ExceptionName,
  InvalidSystemMetadata,
  isExceptionName,
  ServiceFailure,
} from "../errors/exceptions.ts";
import { formatDateTime } from "../types/datetime.ts";
import {
  type LogEntry,
  type ObjectInfo,
  parseError,
  parseLog,
  parseNode,
  parseObjectList,
  parseSystemMetadata,
  type Slice,
} from "../types/index.ts";
import type { Node } from "../types/node.ts";
import type { ApiVersion, SystemMetadata } from "../types/sysmeta.ts";
import type { ErrorClass } from "../types/xml.ts";
import { checkIdentifier } from "../types/xml-read.ts";

export interface SourceCredentials {
  /** A bearer token (a CN-issued JWT, or one a d1node source signed). */
  token?: string;
  /** PEM files: the client certificate and its private key, and the CA that signed the source's server certificate. */
  certFile?: string;
  keyFile?: string;
  caFile?: string;
}

export interface SourceLimits {
  /** Largest system metadata, Node or error document read (default 1 MiB, the node's own `maxDocumentBytes`). */
  maxDocumentBytes?: number;
  /** Largest listing or log page read (default 64 MiB). */
  maxPageBytes?: number;
  /** Overall deadline of a call, its answer read to the end (default 120 s). */
  deadlineMs?: number;
  /** An object's bytes get this much more time per byte declared (default 64 KiB/s). */
  minBytesPerSecond?: number;
  /** Aborts every call (an operator's Ctrl-C): calls then reject with ImportInterrupted. */
  signal?: AbortSignal;
}

export interface ListRequest {
  fromDate?: Date;
  toDate?: Date;
  start?: number;
  count?: number;
}

/** A listed object; `refused` says why the entry cannot be copied (an identifier no DataONE node may hold). */
export type ListedObject = ObjectInfo & { refused?: string };

export interface SourceNode {
  readonly baseUrl: string;
  readonly version: ApiVersion;
  /** The source's Node document (its identifier names it in the records it serves). */
  readonly node: Node;
  listObjects(window: ListRequest): Promise<Slice<ListedObject>>;
  getSystemMetadata(pid: string): Promise<SystemMetadata>;
  /** MNRead.get: the bytes as they arrive, never buffered; `size` (declared) sets the call's deadline. */
  get(pid: string, size: number): Promise<Readable>;
  getLogRecords(window: ListRequest): Promise<Slice<LogEntry>>;
  close(): Promise<void>;
}

/** The source could not be reached at all (connection refused, timed out, cut off): worth waiting for. */
export class SourceUnreachable extends ServiceFailure {}

/** The run was asked to stop (Ctrl-C) while a call was under way. */
export class ImportInterrupted extends Error {
  constructor() {
    super("interrupted");
  }
}

const HEADERS_TIMEOUT_MS = 60_000;
const IDLE_TIMEOUT_MS = 120_000;
const MIB = 1024 * 1024;
const DEFAULT_LIMITS = {
  maxDocumentBytes: MIB,
  maxPageBytes: 64 * MIB,
  deadlineMs: 120_000,
  minBytesPerSecond: 64 * 1024,
};
/** An error document is read up to this many bytes (its description is all that is used). */
const MAX_ERROR_BYTES = 64 * 1024;
const NETWORK_CODES = new Set(["ECONNRESET", "ECONNREFUSED", "EPIPE", "ETIMEDOUT", "ECONNABORTED"]);

/** Connects to `baseUrl` (without /v1 or /v2): the v2 Node document, else the v1 one. */
export async function openSource(
  baseUrl: string,
  credentials: SourceCredentials,
  version?: ApiVersion,
  limits: SourceLimits = {},
): Promise<SourceNode> {
  const root = baseUrl.replace(/\/+$/, "");
  const agent = new Agent({
    keepAliveTimeout: 30_000,
    connect: { timeout: 10_000, ...tlsOptions(credentials) },
  });
  const headers: Record<string, string> = credentials.token
    ? { authorization: `Bearer ${credentials.token}` }
    : {};
  const settled = { ...DEFAULT_LIMITS, ...limits };
  const call = callerFor(root, agent, headers, settled);
  try {
    const chosen = version ?? (await detectVersion(call));
    const node = parseNode(await call.text(chosen, "/node"), ServiceFailure);
    return sourceFor(root, chosen, node, call, agent, 1000 / settled.minBytesPerSecond);
  } catch (error) {
    await agent.close();
    throw error;
  }
}

function tlsOptions(credentials: SourceCredentials): object {
  const read = (file: string | undefined) => (file ? readFileSync(file) : undefined);
  const cert = read(credentials.certFile);
  const key = read(credentials.keyFile);
  const ca = read(credentials.caFile);
  return { ...(cert ? { cert } : {}), ...(key ? { key } : {}), ...(ca ? { ca } : {}) };
}

/** "v2" when the source answers its v2 Node document; a v1-only node answers 404 or NotImplemented there. */
async function detectVersion(call: Caller): Promise<ApiVersion> {
  try {
    await call.text("v2", "/node");
    return "v2";
  } catch (error) {
    if (error instanceof D1Error && error.exception !== "ServiceFailure" && error.exception !== "NotFound")
      throw error; // InvalidToken, NotAuthorized: the v1 answer would be the same
    try {
      await call.text("v1", "/node");
    } catch {
      throw error;
    }
    return "v1";
  }
}

interface CallOptions {
  pid?: string;
  /** A listing or log page (read up to maxPageBytes; other documents up to maxDocumentBytes). */
  page?: boolean;
  /** Time added to the deadline (an object's bytes). */
  extraMs?: number;
}

interface Caller {
  /** The answer's body as a stream, the call's deadline running until it is read to its end. */
  stream(version: ApiVersion, route: string, options?: CallOptions): Promise<Readable>;
  text(version: ApiVersion, route: string, options?: CallOptions): Promise<string>;
}

function callerFor(
  root: string,
  agent: Agent,
  headers: Record<string, string>,
  limits: Required<Omit<SourceLimits, "signal">> & Pick<SourceLimits, "signal">,
): Caller {
  /** What went wrong with a call, as the import tells it. */
  const failure = (what: string, error: unknown, deadline: AbortSignal, ms: number, pid?: string) => {
    if (error instanceof D1Error || error instanceof ImportInterrupted) return error;
    if (limits.signal?.aborted) return new ImportInterrupted();
    const about = pid ? { pid } : {};
    if (deadline.aborted)
      return new ServiceFailure(`${what} did not finish within ${Math.round(ms / 1000)} s.`, about);
    const code = String((error as NodeJS.ErrnoException | undefined)?.code ?? "");
    const cause =
      error instanceof Error ? ((error.cause as Error | undefined)?.message ?? error.message) : String(error);
    if (code.startsWith("UND_ERR") || NETWORK_CODES.has(code) || error instanceof TypeError)
      return new SourceUnreachable(`${what} could not be reached: ${cause}`, about);
    return error;
  };
  const open = async (version: ApiVersion, route: string, options: CallOptions) => {
    const url = `${root}/${version}${route}`;
    const ms = Math.ceil(limits.deadlineMs + (options.extraMs ?? 0));
    const deadline = AbortSignal.timeout(ms);
    const signal = limits.signal ? AbortSignal.any([deadline, limits.signal]) : deadline;
    const fail = (error: unknown) => failure(`GET ${url}`, error, deadline, ms, options.pid);
    let response: Dispatcher.ResponseData;
    try {
      response = await request(url, {
        dispatcher: agent,
        headers,
        signal,
        headersTimeout: HEADERS_TIMEOUT_MS,
        bodyTimeout: IDLE_TIMEOUT_MS,
      });
    } catch (error) {
      throw fail(error);
    }
    if (response.statusCode < 200 || response.statusCode > 299)
      throw await remoteFailure(response, `GET ${url}`, options.pid).catch((error: unknown) => {
        throw fail(error);
      });
    return { body: response.body, url, fail };
  };
  return {
    async stream(version, route, options = {}) {
      const { body, fail } = await open(version, route, options);
      // Read as the consumer reads; errors leave as the import's: a deadline, the source gone, Ctrl-C.
      async function* translated() {
        try {
          for await (const chunk of body) yield chunk as Buffer;
        } catch (error) {
          throw fail(error);
        }
      }
      return Readable.from(translated(), { objectMode: false });
    },
    async text(version, route, options = {}) {
      const { body, url, fail } = await open(version, route, options);
      try {
        return await readCapped(
          body,
          options.page ? limits.maxPageBytes : limits.maxDocumentBytes,
          `GET ${url}`,
          options.pid,
        );
      } catch (error) {
        throw fail(error);
      }
    },
  };
}

/** A body read whole up to `limit` bytes; a longer one is a ServiceFailure, its connection closed at once. */
async function readCapped(body: Readable, limit: number, what: string, pid?: string): Promise<string> {
  const chunks: Buffer[] = [];
  let total = 0;
  for await (const chunk of body) {
    total += (chunk as Buffer).length;
    if (total > limit) {
      body.destroy();
      throw new ServiceFailure(`${what} answered more than ${limit} bytes; the answer was not read.`, {
        ...(pid ? { pid } : {}),
      });
    }
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks).toString("utf8");
}

/** The source's exception, or a ServiceFailure describing what came back instead. */
async function remoteFailure(
  response: Dispatcher.ResponseData,
  what: string,
  pid?: string,
): Promise<D1Error> {
  let text = "";
  try {
    text = await readCapped(response.body, MAX_ERROR_BYTES, what, pid);
  } catch (error) {
    if (!(error instanceof ServiceFailure)) throw error;
  }
  try {
    const error = parseError(text);
    const name: ExceptionName = isExceptionName(error.exception) ? error.exception : "ServiceFailure";
    const about = error.pid ?? pid;
    return new D1Error(name, error.description, {
      ...(about ? { pid: about } : {}),
      detailCode: error.detailCode,
    });
  } catch {
    const description = `${what} answered HTTP ${response.statusCode} without a DataONE error document.`;
    return new ServiceFailure(description, pid ? { pid } : {});
  }
}

function query(params: Record<string, Date | number | undefined>): string {
  const search = new URLSearchParams();
  for (const [name, value] of Object.entries(params)) {
    if (value !== undefined) search.set(name, value instanceof Date ? formatDateTime(value) : String(value));
  }
  const text = search.toString();
  return text === "" ? "" : `?${text}`;
}

// Characters XML 1.0 does not allow, raw or as a character reference (&#0;, &#x1;, ...).
const NOT_XML_CHAR = /[^\t\n\r\x20-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/u;
const CHARACTER_REFERENCE = /&#(x[0-9a-fA-F]+|[0-9]+);/g;
const MARK = "\uFFFD";

/**
 * A listing page, each entry judged alone: characters XML does not allow are read as U+FFFD (so that one entry
 * cannot make the page unreadable) and an entry whose identifier had one, or is no valid identifier, is `refused`.
 */
function parseListing(text: string, fail: ErrorClass): Slice<ListedObject> {
  const cleaned = text
    .replace(new RegExp(NOT_XML_CHAR.source, "gu"), MARK)
    .replace(CHARACTER_REFERENCE, (reference, code: string) => {
      const point = code.startsWith("x") ? Number.parseInt(code.slice(1), 16) : Number(code);
      const char = point <= 0x10ffff ? String.fromCodePoint(point) : "\u0000";
      return NOT_XML_CHAR.test(char) ? MARK : reference;
    });
  const marked = cleaned !== text;
  const page = parseObjectList(cleaned, fail, { anyIdentifier: true });
  const items = page.items.map((item): ListedObject => {
    const shown = JSON.stringify(item.identifier);
    if (marked && item.identifier.includes(MARK)) {
      return { ...item, refused: `the source lists ${shown}, with a character XML does not allow: skipped` };
    }
    try {
      checkIdentifier(item.identifier, "identifier", InvalidSystemMetadata);
      return item;
    } catch (error) {
      return { ...item, refused: `the source lists ${shown}: ${(error as D1Error).description}: skipped` };
    }
  });
  return { ...page, items };
}

function sourceFor(
  root: string,
  version: ApiVersion,
  node: Node,
  call: Caller,
  agent: Agent,
  msPerByte: number,
): SourceNode {
  const id = (pid: string) => encodeURIComponent(pid);
  return {
    baseUrl: root,
    version,
    node,
    listObjects: async ({ fromDate, toDate, start, count }) => {
      const route = `/object${query({ fromDate, toDate, start, count })}`;
      return parseListing(await call.text(version, route, { page: true }), ServiceFailure);
    },
    getSystemMetadata: async (pid) =>
      parseSystemMetadata(await call.text(version, `/meta/${id(pid)}`, { pid })),
    get: (pid, size) => call.stream(version, `/object/${id(pid)}`, { pid, extraMs: size * msPerByte }),
    getLogRecords: async ({ fromDate, toDate, start, count }) => {
      const route = `/log${query({ fromDate, toDate, start, count })}`;
      return parseLog(await call.text(version, route, { page: true }), ServiceFailure);
    },
    close: () => agent.close(),
  };
}
