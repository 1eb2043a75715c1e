/**
 * The node an import copies from: any DataONE Member Node (GMN, Metacat, d1node), v2 API when it has one, else
 * v1. Calls carry the operator's credentials: a bearer token ("Authorization: Bearer", as DataONE's clients send
 * the CN-issued token), or a client certificate given to the TLS handshake. A remote DataONE exception comes back
 * as that exception (its error document parsed); a node that cannot be reached, or answers something else, is a
 * ServiceFailure that says so. Requests give up when headers are late or a body stops delivering bytes, never on
 * a long transfer that keeps going.
 */
import { readFileSync } from "node:fs";
import type { Readable } from "node:stream";
import { Agent, type Dispatcher, request } from "undici";
import { D1Error, type ExceptionName, isExceptionName, ServiceFailure } from "../errors/exceptions.ts";
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

export interface SourceCredentials {
  /** A bearer token (a CN-issued JWT, or one a d1node source signed). */
  token?: string;
  /** PEM files: the client certificate and its private key, and the CA that signed the source's server certificate. */
  certFile?: string;
  keyFile?: string;
  caFile?: string;
}

export interface ListRequest {
  fromDate?: Date;
  toDate?: Date;
  start?: number;
  count?: number;
}

export interface SourceNode {
  readonly baseUrl: string;
  readonly version: ApiVersion;
  /** The source's Node document (its identifier names it in the records it serves). */
  readonly node: Node;
  listObjects(window: ListRequest): Promise<Slice<ObjectInfo>>;
  getSystemMetadata(pid: string): Promise<SystemMetadata>;
  /** MNRead.get: the bytes as they arrive, never buffered. */
  get(pid: string): Promise<Readable>;
  getLogRecords(window: ListRequest): Promise<Slice<LogEntry>>;
  close(): Promise<void>;
}

/** The source could not be reached at all (connection refused, timed out, cut off): worth waiting for. */
export class SourceUnreachable extends ServiceFailure {}

const HEADERS_TIMEOUT_MS = 60_000;
const IDLE_TIMEOUT_MS = 120_000;

/** Connects to `baseUrl` (without /v1 or /v2): the v2 Node document, else the v1 one. */
export async function openSource(
  baseUrl: string,
  credentials: SourceCredentials,
  version?: ApiVersion,
): Promise<SourceNode> {
  const root = baseUrl.replace(/\/+$/, "");
  const agent = new Agent({
    keepAliveTimeout: 30_000,
    connect: { timeout: 10_000, ...tlsOptions(credentials) },
  });
  const headers: Record<string, string> = credentials.token
    ? { authorization: `Bearer ${credentials.token}` }
    : {};
  const call = callerFor(root, agent, headers);
  try {
    const chosen = version ?? (await detectVersion(call));
    const node = parseNode(await call.text(chosen, "/node"));
    return sourceFor(root, chosen, node, call, agent);
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

interface Caller {
  call(version: ApiVersion, route: string, pid?: string): Promise<Dispatcher.ResponseData>;
  text(version: ApiVersion, route: string, pid?: string): Promise<string>;
}

function callerFor(root: string, agent: Agent, headers: Record<string, string>): Caller {
  const unreachable = (what: string, error: unknown, pid?: string) => {
    const cause =
      error instanceof Error ? ((error.cause as Error | undefined)?.message ?? error.message) : "";
    return new SourceUnreachable(
      `${what} could not be reached: ${cause || String(error)}`,
      pid ? { pid } : {},
    );
  };
  const call = async (version: ApiVersion, route: string, pid?: string) => {
    const url = `${root}/${version}${route}`;
    let response: Dispatcher.ResponseData;
    try {
      response = await request(url, {
        dispatcher: agent,
        headers,
        headersTimeout: HEADERS_TIMEOUT_MS,
        bodyTimeout: IDLE_TIMEOUT_MS,
      });
    } catch (error) {
      throw unreachable(`GET ${url}`, error, pid);
    }
    if (response.statusCode >= 200 && response.statusCode <= 299) return response;
    throw await remoteFailure(response, `GET ${url}`, pid);
  };
  return {
    call,
    async text(version, route, pid) {
      const response = await call(version, route, pid);
      try {
        return await response.body.text();
      } catch (error) {
        throw unreachable(`GET ${root}/${version}${route}`, error, pid);
      }
    },
  };
}

/** The source's exception, or a ServiceFailure describing what came back instead. */
async function remoteFailure(
  response: Dispatcher.ResponseData,
  what: string,
  pid?: string,
): Promise<D1Error> {
  const text = await response.body.text().catch(() => "");
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

function sourceFor(root: string, version: ApiVersion, node: Node, call: Caller, agent: Agent): SourceNode {
  const id = (pid: string) => encodeURIComponent(pid);
  return {
    baseUrl: root,
    version,
    node,
    listObjects: async ({ fromDate, toDate, start, count }) =>
      parseObjectList(await call.text(version, `/object${query({ fromDate, toDate, start, count })}`)),
    getSystemMetadata: async (pid) => parseSystemMetadata(await call.text(version, `/meta/${id(pid)}`, pid)),
    get: async (pid) => (await call.call(version, `/object/${id(pid)}`, pid)).body,
    getLogRecords: async ({ fromDate, toDate, start, count }) =>
      parseLog(await call.text(version, `/log${query({ fromDate, toDate, start, count })}`)),
    close: () => agent.close(),
  };
}
