/**
 * Reviewer links (src/services/mn/review/), served by a Member Node in its own namespace:
 * - `POST {basePath}/review-links` (JSON `{pid, expires?, anonymise?, label?}`): a new link, 201 with its URL,
 *   shown this once; `GET {basePath}/review-links[?pid=]`: the caller's links; `DELETE {basePath}/review-links/{id}`:
 *   revoke one. Rights holders and administrators only; JSON answers, DataONE exceptions on failure.
 * - `GET {basePath}/review/{token}`: the dataset's landing page; `.../object/{pid}`: one of its objects;
 *   `.../package`: the package as a BagIt zip (HEAD on each: the same headers, no body, no read logged).
 *   Nothing else answers to the token: it is not a bearer token. Another method there is 405 (Allow: GET, HEAD;
 *   OPTIONS is the node's, src/http/plugins/cors.ts).
 * Every review answer says `Referrer-Policy: no-referrer` (the token is in the URL), `Cache-Control: no-store`
 * and `X-Robots-Tag: noindex`; objects are always attachments under a sandboxing Content-Security-Policy, so a
 * data file cannot run script on the page's origin and read the token from its address.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import type { NodeContext } from "../../context/node-context.ts";
import { D1Error, InvalidRequest } from "../../errors/exceptions.ts";
import {
  createReviewLink,
  listReviewLinks,
  type ReviewLinkView,
  revokeReviewLink,
} from "../../services/mn/review/links.ts";
import {
  describeReviewObject,
  describeReviewPackage,
  openReviewLink,
  reviewObject,
  reviewPackage,
  reviewPage,
} from "../../services/mn/review/reads.ts";
import { parseDateTime } from "../../types/xml.ts";
import type { ViewLinks } from "../../views/model.ts";
import { finishUnreadBody } from "../body-drain.ts";
import { callInfo } from "../call.ts";
import { contentDisposition } from "../headers.ts";
import { pathAfter, refuseImpossibleIdentifier } from "../path-id.ts";
import { CONTENT_SECURITY_POLICY } from "./view.ts";

const SANDBOX = "sandbox; default-src 'none'";
/** What a reviewer link answers to. */
const READ_METHODS = ["GET", "HEAD"];

export function registerReviewRoutes(app: FastifyInstance, ctx: NodeContext): void {
  registerLinkManagement(app, ctx);
  registerReviewReads(app, ctx);
}

function registerLinkManagement(app: FastifyInstance, ctx: NodeContext): void {
  const base = `${ctx.config.basePath}/review-links`;
  const api = { config: { apiMethod: "reviewLinks" } };
  app.post(base, api, async (request, reply) => {
    const body = jsonBody(request.body);
    const { link, token } = await createReviewLink(ctx, callInfo(request), {
      pid: stringField(body, "pid", true) ?? "",
      expires: dateField(body, "expires"),
      anonymise: booleanField(body, "anonymise"),
      label: stringField(body, "label", false),
    });
    return reply
      .code(201)
      .header("Cache-Control", "no-store")
      .send({ ...linkJson(link), token, url: `${ctx.config.baseUrl}/review/${token}` });
  });
  app.get(base, api, async (request, reply) => {
    const pid = (request.query as Record<string, unknown>).pid;
    if (pid !== undefined && typeof pid !== "string") throw new InvalidRequest("Give pid at most once.");
    const links = await listReviewLinks(ctx, callInfo(request), pid);
    return reply.header("Cache-Control", "no-store").send({ links: links.map(linkJson) });
  });
  app.delete(`${base}/:id`, api, async (request, reply) => {
    const { id } = request.params as { id: string };
    const link = await revokeReviewLink(ctx, callInfo(request), id);
    return reply.header("Cache-Control", "no-store").send(linkJson(link));
  });
}

function linkJson(link: ReviewLinkView) {
  return {
    id: link.id,
    pid: link.pid,
    package: link.packagePid ?? null,
    rightsHolder: link.rightsHolder,
    createdBy: link.createdBy,
    anonymise: link.anonymise,
    label: link.label ?? null,
    created: new Date(link.createdAt).toISOString(),
    expires: new Date(link.expiresAt).toISOString(),
    revoked: link.revokedAt === undefined ? null : new Date(link.revokedAt).toISOString(),
    active: link.active,
  };
}

function registerReviewReads(app: FastifyInstance, ctx: NodeContext): void {
  const base = `${ctx.config.basePath}/review/`;
  // Browser paths: any other method is 405 with what they allow, answered before a body is read, naming no token.
  app.route({
    method: app.supportedMethods.filter((method) => !READ_METHODS.includes(method) && method !== "OPTIONS"),
    url: `${base}*`,
    onRequest: async (request, reply) => {
      finishUnreadBody(request, reply);
      reviewHeaders(reply);
      return reply
        .code(405)
        .header("Allow", READ_METHODS.join(", "))
        .type("text/plain; charset=utf-8")
        .send("A reviewer link answers GET and HEAD only.\n");
    },
    // Never reached: the hook has answered.
    handler: async () => undefined,
  });
  // HEAD answers as GET would, without a body, without reading bytes or building a bag, and logs no read.
  app.route({
    method: READ_METHODS,
    url: `${base}*`,
    config: { apiMethod: "reviewLinks.read" },
    handler: async (request, reply) => {
      const head = request.method === "HEAD";
      reviewHeaders(reply);
      const rest = pathAfter(request, base);
      const slash = rest.indexOf("/");
      const token = slash < 0 ? rest : rest.slice(0, slash);
      const what = slash < 0 ? "" : rest.slice(slash + 1);
      let opened: Awaited<ReturnType<typeof openReviewLink>>;
      try {
        opened = await openReviewLink(ctx, callInfo(request), token);
      } catch (error) {
        // A reviewer following an old link in a browser gets a page saying so; programs get the DataONE exception.
        if (
          what !== "" ||
          !(error instanceof D1Error) ||
          error.exception !== "NotAuthorized" ||
          !wantsHtml(request)
        )
          throw error;
        return reply
          .code(401)
          .type("text/html; charset=utf-8")
          .header("Content-Security-Policy", CONTENT_SECURITY_POLICY)
          .send(ENDED_PAGE);
      }
      const at = `${ctx.config.basePath}/review/${token}`;
      if (what === "") {
        const links: ViewLinks = {
          object: (pid) => `${at}/object/${encodeURIComponent(pid)}`,
          view: () => at,
          package: () => `${at}/package`,
        };
        const page = await reviewPage(ctx, opened, links, !head);
        return reply
          .type("text/html; charset=utf-8")
          .header("Content-Security-Policy", CONTENT_SECURITY_POLICY)
          .send(page);
      }
      if (what === "package") {
        const bag = head ? await describeReviewPackage(ctx, opened) : await reviewPackage(ctx, opened);
        return reply
          .type("application/zip")
          .header("Content-Disposition", contentDisposition(bag.fileName))
          .send("body" in bag ? bag.body : undefined);
      }
      if (what.startsWith("object/")) {
        const pid = what.slice("object/".length);
        refuseImpossibleIdentifier(pid);
        const { shown, body } = head
          ? { shown: describeReviewObject(opened, pid), body: undefined }
          : reviewObject(ctx, opened, pid);
        const { sysmeta } = shown.object;
        return reply
          .type(
            sysmeta.mediaType?.name ??
              ctx.formats.get(sysmeta.formatId)?.mediaType?.name ??
              "application/octet-stream",
          )
          .header("Content-Length", String(shown.object.digests.size))
          .header("Content-Disposition", contentDisposition(shown.fileName))
          .header("Content-Security-Policy", SANDBOX)
          .send(body);
      }
      throw new InvalidRequest(
        "A reviewer link serves its page ({token}), its objects ({token}/object/{pid}) and its package ({token}/package).",
      );
    },
  });
}

const ENDED_PAGE = `<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><meta name="referrer" content="no-referrer"><title>Link not valid</title></head>
<body><h1>This reviewer link is not valid</h1><p>It is unknown, has expired or was revoked. Ask the person who sent it
for a new one.</p></body></html>
`;

function wantsHtml(request: FastifyRequest): boolean {
  return /\btext\/html\b/.test(request.headers.accept ?? "");
}

function reviewHeaders(reply: FastifyReply): void {
  reply
    .header("Referrer-Policy", "no-referrer")
    .header("Cache-Control", "no-store")
    .header("X-Robots-Tag", "noindex, nofollow")
    .header("X-Content-Type-Options", "nosniff");
}

type JsonObject = Record<string, unknown>;

function jsonBody(body: FastifyRequest["body"]): JsonObject {
  if (body === null || typeof body !== "object" || Array.isArray(body))
    throw new InvalidRequest(
      'Send a JSON object, e.g. {"pid": "...", "expires": "2030-01-01T00:00:00Z", "anonymise": true}.',
    );
  return body as JsonObject;
}

function stringField(body: JsonObject, name: string, required: boolean): string | undefined {
  const value = body[name];
  if (value === undefined && !required) return undefined;
  if (typeof value !== "string") throw new InvalidRequest(`The field ${name} must be a string.`);
  return value;
}

function booleanField(body: JsonObject, name: string): boolean | undefined {
  const value = body[name];
  if (value === undefined) return undefined;
  if (typeof value !== "boolean") throw new InvalidRequest(`The field ${name} must be true or false.`);
  return value;
}

function dateField(body: JsonObject, name: string): Date | undefined {
  const value = stringField(body, name, false);
  if (value === undefined) return undefined;
  const date = parseDateTime(value);
  if (!date)
    throw new InvalidRequest(`The field ${name} must be a date and time, e.g. 2030-01-01T00:00:00Z.`);
  return date;
}
