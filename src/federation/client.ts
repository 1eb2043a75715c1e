/**
 * Calls to other nodes of the federation (document 1 and 2 REST paths), authenticated as this node: over TLS
 * with the node's client certificate (nodeCert), and/or with "Authorization: Bearer <token>" signed with the
 * node's own key for its subject (see src/auth/node-credentials.ts).
 * A remote DataONE exception is rethrown as that exception (parsed from its error document); a node that cannot
 * be reached, or answers something else, is a ServiceFailure that says so. A call gives up when the headers do
 * not come in time, or when a body (streamed ones too) stops delivering bytes for a while; a long transfer that
 * keeps delivering is never cut short.
 */
import type { Readable } from "node:stream";
import { type Dispatcher, FormData, request } from "undici";
import { nodeCallHeaders, nodeDispatcher } from "../auth/node-credentials.ts";
import {
  D1Error,
  EXCEPTION_STATUS,
  type ExceptionName,
  isExceptionName,
  ServiceFailure,
} from "../errors/exceptions.ts";
import type { NodeContext } from "../services/context.ts";
import { formatDateTime } from "../types/datetime.ts";
import {
  type LogEntry,
  type ObjectInfo,
  parseChecksum,
  parseError,
  parseLog,
  parseNode,
  parseNodeList,
  parseObjectList,
  parseSystemMetadata,
  type Slice,
  serializeError,
  serializeSystemMetadata,
} from "../types/index.ts";
import type { Node } from "../types/node.ts";
import type { Checksum, ReplicationStatus, SystemMetadata } from "../types/sysmeta.ts";
import { requestText, type TextAnswer } from "./text-request.ts";

export interface ListWindow {
  fromDate?: Date;
  toDate?: Date;
  start?: number;
  count?: number;
}

export interface D1Client {
  readonly baseUrl: string;
  /** MNCore.ping / CNCore.ping. */
  ping(): Promise<void>;
  getCapabilities(): Promise<Node>;
  /** CNCore.listNodes. */
  listNodes(): Promise<Node[]>;
  listObjects(window: ListWindow & { formatId?: string }): Promise<Slice<ObjectInfo>>;
  getSystemMetadata(pid: string): Promise<SystemMetadata>;
  getChecksum(pid: string, algorithm?: string): Promise<Checksum>;
  get(pid: string): Promise<Readable>;
  getReplica(pid: string): Promise<Readable>;
  getLogRecords(window: ListWindow): Promise<Slice<LogEntry>>;
  /** MNReplication.replicate. */
  replicate(sysmeta: SystemMetadata, sourceNode: string): Promise<void>;
  /** MNRead.systemMetadataChanged. */
  systemMetadataChanged(pid: string, serialVersion: number, modified: Date): Promise<void>;
  /** MNRead.synchronizationFailed. */
  synchronizationFailed(pid: string, description: string): Promise<void>;
  /** CNRead.synchronize. */
  synchronize(pid: string): Promise<void>;
  /** CNReplication.setReplicationStatus. */
  setReplicationStatus(
    pid: string,
    nodeId: string,
    status: ReplicationStatus,
    failureDescription?: string,
  ): Promise<void>;
}

export interface ClientOptions {
  version?: "v1" | "v2";
  /** Per request, until the response headers arrive (default 30 s). */
  timeoutMs?: number;
  /** While a body is read (a streamed one too): the longest wait for its next bytes (default 60 s). */
  idleTimeoutMs?: number;
}

type Answer = Dispatcher.ResponseData;

const path = (pid: string) => encodeURIComponent(pid);

function query(params: Record<string, string | number | Date | undefined>): string {
  const search = new URLSearchParams();
  for (const [name, value] of Object.entries(params)) {
    if (value === undefined) continue;
    search.set(name, value instanceof Date ? formatDateTime(value) : String(value));
  }
  const text = search.toString();
  return text === "" ? "" : `?${text}`;
}

function xmlPart(xml: string, filename: string): Blob {
  return new File([xml], filename, { type: "text/xml" });
}

/** The remote node's exception, or a ServiceFailure describing what came back instead. */
async function remoteFailure(response: Answer, what: string, pid?: string): Promise<D1Error> {
  const text = await response.body.text().catch(() => "");
  return failureFrom(response.statusCode, text, what, pid);
}

/** The exception an error answer (`statusCode`, body `text`) stands for. */
function failureFrom(statusCode: number, text: string, what: string, pid?: string): D1Error {
  try {
    const error = parseError(text);
    const name: ExceptionName = isExceptionName(error.exception) ? error.exception : "ServiceFailure";
    return new D1Error(name, error.description, {
      ...((error.pid ?? pid) ? { pid: error.pid ?? pid } : {}),
      detailCode: error.detailCode,
    });
  } catch {
    const description = `${what} answered HTTP ${statusCode} without a DataONE error document.`;
    return new ServiceFailure(description, pid ? { pid } : {});
  }
}

export function clientFor(
  ctx: Pick<NodeContext, "config">,
  baseUrl: string,
  options: ClientOptions = {},
): D1Client {
  const base = `${baseUrl.replace(/\/+$/, "")}/${options.version ?? "v2"}`;
  const timeoutMs = options.timeoutMs ?? 30_000;
  const idleTimeoutMs = options.idleTimeoutMs ?? 60_000;
  // One connection pool per node credentials: connections to a node are kept open between requests (a harvest
  // makes one request per object), as many per node as requests run at once.
  const pool = nodeDispatcher(ctx.config);

  const unreachable = (what: string, error: unknown, pid?: string) => {
    const cause =
      error instanceof Error ? (error.cause instanceof Error ? error.cause.message : error.message) : "";
    return new ServiceFailure(`${what} could not be reached: ${cause || String(error)}`, {
      ...(pid ? { pid } : {}),
    });
  };

  async function call(
    method: Dispatcher.HttpMethod,
    route: string,
    init: { body?: FormData; pid?: string } = {},
  ) {
    const url = `${base}${route}`;
    const what = `${method} ${url}`;
    let response: Answer;
    try {
      response = await request(url, {
        dispatcher: pool,
        method,
        headers: await nodeCallHeaders(ctx.config, url),
        ...(init.body ? { body: init.body } : {}),
        headersTimeout: timeoutMs,
        bodyTimeout: idleTimeoutMs,
      });
    } catch (error) {
      throw unreachable(what, error, init.pid);
    }
    if (response.statusCode < 200 || response.statusCode > 299)
      throw await remoteFailure(response, what, init.pid);
    return { response, what };
  }

  /** A bodiless call's answer as text (text-request.ts: no stream per response). */
  const textOf = async (method: Dispatcher.HttpMethod, route: string, pid?: string) => {
    const url = `${base}${route}`;
    const what = `${method} ${url}`;
    let answer: TextAnswer;
    try {
      answer = await requestText(pool, url, {
        method,
        headers: await nodeCallHeaders(ctx.config, url),
        headersTimeout: timeoutMs,
        bodyTimeout: idleTimeoutMs,
      });
    } catch (error) {
      throw unreachable(what, error, pid);
    }
    if (answer.statusCode < 200 || answer.statusCode > 299)
      throw failureFrom(answer.statusCode, answer.text, what, pid);
    return answer.text;
  };

  const text = async (
    method: Dispatcher.HttpMethod,
    route: string,
    init: { body?: FormData; pid?: string } = {},
  ) => {
    if (!init.body) return textOf(method, route, init.pid);
    const { response, what } = await call(method, route, init);
    try {
      return await response.body.text();
    } catch (error) {
      throw unreachable(what, error, init.pid);
    }
  };

  /** The body as it arrives (never buffered); it fails with an error when no bytes come for idleTimeoutMs. */
  const stream = async (route: string, pid: string): Promise<Readable> =>
    (await call("GET", route, { pid })).response.body;

  const form = (parts: Record<string, string | Blob>) => {
    const body = new FormData();
    for (const [name, value] of Object.entries(parts)) body.append(name, value);
    return body;
  };

  return {
    baseUrl,
    ping: async () => {
      await text("GET", "/monitor/ping");
    },
    getCapabilities: async () => parseNode(await text("GET", "/node")),
    listNodes: async () => parseNodeList(await text("GET", "/node")),
    listObjects: async ({ fromDate, toDate, formatId, start, count }) =>
      parseObjectList(await text("GET", `/object${query({ fromDate, toDate, formatId, start, count })}`)),
    getSystemMetadata: async (pid) => parseSystemMetadata(await text("GET", `/meta/${path(pid)}`, { pid })),
    getChecksum: async (pid, algorithm) =>
      parseChecksum(
        await text("GET", `/checksum/${path(pid)}${query({ checksumAlgorithm: algorithm })}`, { pid }),
      ),
    get: (pid) => stream(`/object/${path(pid)}`, pid),
    getReplica: (pid) => stream(`/replica/${path(pid)}`, pid),
    getLogRecords: async ({ fromDate, toDate, start, count }) =>
      parseLog(await text("GET", `/log${query({ fromDate, toDate, start, count })}`)),
    async replicate(sysmeta, sourceNode) {
      const sysmetaXml = serializeSystemMetadata(sysmeta, options.version ?? "v2");
      const body = form({ sysmeta: xmlPart(sysmetaXml, "sysmeta.xml"), sourceNode });
      await text("POST", "/replicate", { body, pid: sysmeta.identifier });
    },
    async systemMetadataChanged(pid, serialVersion, modified) {
      const body = form({
        id: pid,
        serialVersion: String(serialVersion),
        dateSysMetaLastModified: formatDateTime(modified),
      });
      await text("POST", "/dirtySystemMetadata", { body, pid });
    },
    async synchronizationFailed(pid, description) {
      const message = serializeError({
        exception: "SynchronizationFailed",
        errorCode: EXCEPTION_STATUS.SynchronizationFailed,
        detailCode: "0",
        description,
        pid,
        nodeId: ctx.config.nodeId,
      });
      await text("POST", "/error", { body: form({ message: xmlPart(message, "error.xml") }), pid });
    },
    async synchronize(pid) {
      await text("POST", "/synchronize", { body: form({ pid }), pid });
    },
    async setReplicationStatus(pid, nodeId, status, failureDescription) {
      const parts: Record<string, string | Blob> = { nodeRef: nodeId, status };
      if (failureDescription !== undefined) {
        const failure = serializeError({
          exception: "ServiceFailure",
          errorCode: EXCEPTION_STATUS.ServiceFailure,
          detailCode: "0",
          description: failureDescription,
          pid,
          nodeId: ctx.config.nodeId,
        });
        parts.failure = xmlPart(failure, "failure.xml");
      }
      await text("PUT", `/replicaNotifications/${path(pid)}`, { body: form(parts), pid });
    },
  };
}
