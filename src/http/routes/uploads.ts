/**
 * Resumable uploads: the tus 1.0 protocol at {basePath}/uploads (Member Nodes), answered by @tus/server. Who may
 * upload is who may call MNStorage.create (a token or a client certificate of a submitter; anonymous callers are
 * refused), and an upload is its creator's alone: nobody else may continue, inspect, end or reference it.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { NotAuthorized } from "../../errors/exceptions.ts";
import type { NodeContext } from "../../services/context.ts";
import { requireSubmitter } from "../../services/mn/storage.ts";
import type { UploadArea } from "../../uploads/upload-area.ts";
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
    if (request.method !== "OPTIONS") {
      const call = callInfo(request);
      if (!call.session.authenticated) {
        throw new NotAuthorized(
          "Uploads need an authenticated caller (a client certificate or a bearer token).",
        );
      }
      requireSubmitter(ctx, call, "upload");
      const id = (request.params as { "*"?: string })["*"];
      if (id) await area.requireOwner(id, call.session.subject);
    }
    reply.hijack();
    await area.handle(request.raw, reply.raw, request.session.subject);
  };
  app.register(async (scoped) => {
    // tus bodies are read by @tus/server from the request itself.
    scoped.addContentTypeParser("application/offset+octet-stream", (_request, _payload, done) => done(null));
    const config = { apiMethod: "MNStorage.create" };
    scoped.route({ method: [...METHODS], url: root, config, handler });
    scoped.route({ method: [...METHODS], url: `${root}/*`, config, handler });
  });
}
