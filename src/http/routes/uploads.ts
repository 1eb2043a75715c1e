/**
 * Resumable uploads: the tus 1.0 protocol at {basePath}/uploads (Member Nodes), answered by @tus/server. Who may
 * upload is who may call MNStorage.create (a token or a client certificate of a submitter; anonymous callers are
 * refused), and an upload is its creator's alone: nobody else may continue, inspect, end or reference it.
 * An upload URL names exactly one id of the shape the node issues, and that one id is both the one whose owner
 * is checked and the one the upload library is handed: nothing else in the URL (a path, a trailing slash, a
 * query) reaches it.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import type { NodeContext } from "../../context/node-context.ts";
import { InvalidRequest, NotAuthorized } from "../../errors/exceptions.ts";
import { requireSubmitter } from "../../services/mn/storage.ts";
import type { UploadArea } from "../../uploads/upload-area.ts";
import { isUploadId } from "../../uploads/upload-id.ts";
import { settleUnreadBody, watchIdleBody } from "../body-drain.ts";
import { callInfo } from "../call.ts";

declare module "fastify" {
  interface FastifyInstance {
    /** The node's resumable uploads (Member Nodes only). */
    uploads: UploadArea | undefined;
  }
}

const METHODS = ["POST", "HEAD", "PATCH", "DELETE", "OPTIONS"] as const;

export function registerUploadRoutes(app: FastifyInstance, ctx: NodeContext, area: UploadArea): void {
  const root = `${ctx.config.basePath}/uploads`;
  const handler = async (request: FastifyRequest, reply: FastifyReply) => {
    const id = uploadIdOf(request, root);
    if (request.method !== "OPTIONS") {
      const call = callInfo(request);
      if (!call.session.authenticated) {
        throw new NotAuthorized(
          "Uploads need an authenticated caller (a client certificate or a bearer token).",
        );
      }
      requireSubmitter(ctx, call, "upload");
      if (id) await area.requireOwner(id, call.session.subject);
    }
    reply.hijack();
    const stopWatching = watchStalls(request, id, area);
    try {
      await area.handle(request.raw, reply.raw, {
        subject: request.session.subject,
        id,
        log: request.log,
        settleBody: () => settleUnreadBody(request.raw),
      });
    } finally {
      stopWatching();
    }
  };
  app.register(async (scoped) => {
    // tus bodies are read by @tus/server from the request itself.
    scoped.addContentTypeParser("application/offset+octet-stream", (_request, _payload, done) => done(null));
    const config = { apiMethod: "MNStorage.create" };
    scoped.route({ method: [...METHODS], url: root, config, handler });
    scoped.route({ method: [...METHODS], url: `${root}/*`, config, handler });
  });
}

/**
 * The upload id the URL names: undefined for the uploads' root (creation), else exactly an id of the node's shape
 * (the decoded path segment after `{root}/`; a query is never part of it). Anything else is InvalidRequest, the
 * URL repeated nowhere.
 */
function uploadIdOf(request: FastifyRequest, root: string): string | undefined {
  const named = (request.params as { "*"?: string })["*"];
  if (named === undefined || named === "") return undefined;
  if (request.method === "POST" || !isUploadId(named)) {
    throw new InvalidRequest(
      `This URL names no upload: an upload's URL is ${root}/ followed by the 32 lower-case hexadecimal digits of its id, as its creation returned; uploads are created at ${root}.`,
    );
  }
  return named;
}

/**
 * A body that sends nothing for the upload idle timeout (`uploadIdleTimeout`, as for an inline create) is ended:
 * a PATCH's write stops with what arrived kept and is answered InvalidRequest, the connection closed; any other
 * stalled body (a creation carrying bytes) has its connection closed. Returns a function that stops watching.
 */
function watchStalls(request: FastifyRequest, id: string | undefined, area: UploadArea): () => void {
  const raw = request.raw;
  if (request.method !== "PATCH" && request.method !== "POST") return () => undefined;
  const idleMs = request.server.uploadIdleMs;
  return watchIdleBody(raw, idleMs, () => {
    if (!(id && request.method === "PATCH" && area.endStalled(id, idleMs))) raw.socket.destroy();
  });
}
