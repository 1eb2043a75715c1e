/**
 * Failures the framework meets before a route is chosen: a path that is not valid percent-encoded UTF-8
 * (`/object/abc%FFdef`, `%E0%A4%A`, `%zz`). They are answered as the route the path was meant for answers
 * a bad identifier, with an InvalidRequest exception document carrying that route's detail code (or the
 * DataONE-Exception-* headers on HEAD). The routes are noted as they are added, so the route a raw path was
 * meant for is found without decoding it. Requests the HTTP parser refuses (a bad Content-Length, headers too
 * large) get the exception document too, written to the socket.
 */
import type { Socket } from "node:net";
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { InvalidRequest } from "../../errors/exceptions.ts";
import { serializeError } from "../../types/index.ts";
import { sendError } from "./errors.ts";

interface NotedRoute {
  methods: string[];
  pattern: RegExp;
  /** Characters of the route's fixed text: the most specific route wins. */
  weight: number;
  apiMethod: string;
}

export class FrameworkErrors {
  private readonly routes: NotedRoute[] = [];

  constructor(private readonly nodeId: string) {}

  /** Note every route added to `app` from now on. */
  noteRoutes(app: FastifyInstance): void {
    app.addHook("onRoute", (route) => {
      const apiMethod = route.config?.apiMethod;
      if (!apiMethod) return;
      const fixed = route.url.replace(/:[^/]+|\*/g, "");
      const source = route.url
        .split(/(:[^/]+|\*)/)
        .map((piece) =>
          piece === "*"
            ? ".*"
            : piece.startsWith(":")
              ? "[^/]*"
              : piece.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"),
        )
        .join("");
      this.routes.push({
        methods: [route.method].flat().map((m) => m.toUpperCase()),
        pattern: new RegExp(`^${source}$`),
        weight: fixed.length,
        apiMethod,
      });
    });
  }

  /** Fastify's `frameworkErrors` option. */
  readonly handler = (error: FastifyError, request: FastifyRequest, reply: FastifyReply): void => {
    const rawPath = (request.raw.url ?? "").split("?")[0] ?? "";
    const description =
      error.code === "FST_ERR_BAD_URL"
        ? `The URL path is not valid percent-encoded UTF-8: "${rawPath}" (a literal "%" is sent as %25).`
        : `The request is malformed: ${error.message}`;
    sendError(
      request,
      reply,
      new InvalidRequest(description),
      this.nodeId,
      this.apiMethodOf(request, rawPath),
    );
  };

  /** Fastify's `clientErrorHandler` option: the HTTP parser refused the request before Fastify saw it. */
  readonly clientError = (error: Error & { code?: string }, socket: Socket): void => {
    if (error.code === "ECONNRESET" || socket.destroyed) return;
    if (socket.writable) {
      const description =
        error.code === "HPE_HEADER_OVERFLOW"
          ? "The request headers are larger than the node accepts."
          : error.code === "ERR_HTTP_REQUEST_TIMEOUT"
            ? "The request was not received in time."
            : `The request is not valid HTTP (${error.code ?? error.message}).`;
      const xml = serializeError({
        exception: "InvalidRequest",
        errorCode: 400,
        detailCode: "0",
        description,
        nodeId: this.nodeId,
      });
      socket.write(
        `HTTP/1.1 400 Bad Request\r\nContent-Type: text/xml; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(xml)}\r\nConnection: close\r\n\r\n${xml}`,
      );
    }
    socket.destroy(error);
  };

  private apiMethodOf(request: FastifyRequest, rawPath: string): string {
    const method = request.raw.method ?? "";
    let best: NotedRoute | undefined;
    for (const route of this.routes) {
      if (!route.methods.includes(method) || !route.pattern.test(rawPath)) continue;
      if (!best || route.weight > best.weight) best = route;
    }
    return best?.apiMethod ?? "";
  }
}
