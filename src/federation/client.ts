/**
 * Calls to other nodes of the federation (document 1 and 2 REST paths), authenticated as this node: over TLS
 * with the node's client certificate (nodeCert), and/or with "Authorization: Bearer <token>" signed with the
 * node's own key for its subject (see src/auth/node-credentials.ts).
 * A remote DataONE exception is rethrown as that exception (parsed from its error document); a node that cannot
 * be reached, or answers something else, is a ServiceFailure that says so. A call gives up when the headers do
 * not come in time, or when a body (streamed ones too) stops delivering bytes for a while. A document read from
 * the node is capped and its call has a deadline (src/remote/limits.ts): the node's maxDocumentBytes
 * (list pages LIST_DOCUMENTS times that) within `deadlineMs`; object bytes stop past their declared size and
 * must arrive within a deadline that grows with it.
 */
import type { Readable } from "node:stream";
import { type Dispatcher, FormData, request } from "undici";
import { nodeCallHeaders, nodeDispatcher } from "../auth/node-credentials.ts";
import type { NodeContext } from "../context/node-context.ts";
import {
  D1Error,
  EXCEPTION_STATUS,
  type ExceptionName,
  isExceptionName,
  ServiceFailure,
} from "../errors/exceptions.ts";
import {
  boundedTransfer,
  DOCUMENT_DEADLINE_MS,
  type DocumentKind,
  deadlinePassed,
  deadlineSignal,
  documentCap,
  RemoteLimitExceeded,
  readCappedText,
  transferDeadlineMs,
} from "../remote/limits.ts";
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
  /** MNRead.get: the bytes as they arrive, failing past `declaredSize` (the system metadata's) or too slow. */
  get(pid: string, declaredSize: number): Promise<Readable>;
  /** MNReplication.getReplica, bounded as `get`. */
  getReplica(pid: string, declaredSize: number): Promise<Readable>;
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
  /**
   * A call that reads a document: headers and the whole body (default DOCUMENT_DEADLINE_MS, 60 s); object bytes
   * get this plus their declared size at MIN_TRANSFER_BYTES_PER_SECOND.
   */
  deadlineMs?: number;
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

/** The remote node's exception (its error document read up to `maxBytes`), or a ServiceFailure saying what came. */
async function remoteFailure(
  response: Answer,
  maxBytes: number,
  what: string,
  pid?: string,
): Promise<D1Error> {
  const text = await readCappedText(response.body, maxBytes, what).catch(() => "");
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
  const deadlineMs = options.deadlineMs ?? DOCUMENT_DEADLINE_MS;
  const documentBytes = documentCap(ctx.config);
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
    init: { body?: FormData; pid?: string; signal?: AbortSignal } = {},
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
        ...(init.signal ? { signal: init.signal } : {}),
        headersTimeout: timeoutMs,
        bodyTimeout: idleTimeoutMs,
      });
    } catch (error) {
      if (init.signal?.aborted) throw deadlinePassed(what, deadlineMs, init.pid);
      throw unreachable(what, error, init.pid);
    }
    if (response.statusCode < 200 || response.statusCode > 299)
      throw await remoteFailure(response, documentBytes, what, init.pid);
    return { response, what };
  }

  /** A bodiless call's answer as text (text-request.ts: no stream per response). */
  const textOf = async (method: Dispatcher.HttpMethod, route: string, kind: DocumentKind, pid?: string) => {
    const url = `${base}${route}`;
    const what = `${method} ${url}`;
    let answer: TextAnswer;
    try {
      answer = await requestText(pool, url, {
        method,
        headers: await nodeCallHeaders(ctx.config, url),
        headersTimeout: timeoutMs,
        bodyTimeout: idleTimeoutMs,
        maxBytes: documentCap(ctx.config, kind),
        deadlineMs,
      });
    } catch (error) {
      if (error instanceof RemoteLimitExceeded)
        throw new RemoteLimitExceeded(error.description, pid ? { pid } : {});
      throw unreachable(what, error, pid);
    }
    if (answer.statusCode < 200 || answer.statusCode > 299)
      throw failureFrom(answer.statusCode, answer.text, what, pid);
    return answer.text;
  };

  const text = async (
    method: Dispatcher.HttpMethod,
    route: string,
    init: { body?: FormData; pid?: string; kind?: DocumentKind } = {},
  ) => {
    const kind = init.kind ?? "document";
    if (!init.body) return textOf(method, route, kind, init.pid);
    const signal = deadlineSignal(deadlineMs);
    const { response, what } = await call(method, route, { ...init, signal });
    try {
      return await readCappedText(response.body, documentCap(ctx.config, kind), what, init.pid);
    } catch (error) {
      if (error instanceof D1Error) throw error;
      if (signal.aborted) throw deadlinePassed(what, deadlineMs, init.pid);
      throw unreachable(what, error, init.pid);
    }
  };

  /**
   * The body as it arrives (never buffered); it fails when no bytes come for idleTimeoutMs, at the first byte past
   * `declaredSize`, or when the whole has not come within transferDeadlineMs(declaredSize).
   */
  const stream = async (route: string, pid: string, declaredSize: number): Promise<Readable> => {
    const transferMs = transferDeadlineMs(declaredSize, deadlineMs);
    // The signal bounds an error answer's document too; the guard's own deadline, a second earlier, says why.
    const signal = deadlineSignal(Math.min(transferMs + 1000, 2 ** 31 - 1));
    const { response, what } = await call("GET", route, { pid, signal });
    return boundedTransfer(response.body, { declaredSize, what, pid, deadlineMs: transferMs });
  };

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
    listNodes: async () => parseNodeList(await text("GET", "/node", { kind: "list" })),
    listObjects: async ({ fromDate, toDate, formatId, start, count }) =>
      parseObjectList(
        await text("GET", `/object${query({ fromDate, toDate, formatId, start, count })}`, { kind: "list" }),
      ),
    getSystemMetadata: async (pid) => parseSystemMetadata(await text("GET", `/meta/${path(pid)}`, { pid })),
    getChecksum: async (pid, algorithm) =>
      parseChecksum(
        await text("GET", `/checksum/${path(pid)}${query({ checksumAlgorithm: algorithm })}`, { pid }),
      ),
    get: (pid, declaredSize) => stream(`/object/${path(pid)}`, pid, declaredSize),
    getReplica: (pid, declaredSize) => stream(`/replica/${path(pid)}`, pid, declaredSize),
    getLogRecords: async ({ fromDate, toDate, start, count }) =>
      parseLog(await text("GET", `/log${query({ fromDate, toDate, start, count })}`, { kind: "list" })),
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
