/**
 * What a request body may cost the node. Anonymous requests must not make it buffer anything:
 * - operations that only act for an authenticated subject refuse an anonymous caller before the body is read
 *   ("NotAuthorized: the supplied identity information is not authorized for the requested operation");
 * - the text parts a request buffers (system metadata, policies, simple values) count against one node-wide
 *   budget (config maxBufferedTextBytes), held until the response is sent; over it the request fails with
 *   ServiceFailure (every operation lists it) instead of the node growing without bound;
 * - when the answer to an anonymous caller goes out before the whole body arrived, the rest is read and dropped
 *   (nothing is kept) for LINGER_MS, then the connection is closed (an authenticated caller's body is drained
 *   further: see body-drain.ts). Closing at once would reset it under the client's feet, and it
 *   could lose the answer it has not yet read.
 */
import type { FastifyInstance, FastifyRequest } from "fastify";
import { NotAuthorized, ServiceFailure } from "../../errors/exceptions.ts";
import { apiMethodOf } from "../api-method.ts";

/**
 * Operations whose services refuse an anonymous caller in every case: writes by Coordinating Nodes, Member Nodes
 * or account holders. (MNStorage.create, update and generateIdentifier follow the submitters setting instead,
 * checked by their routes before the body; the CNDiagnostic echo calls serve anyone.)
 */
const NEEDS_SUBJECT = new Set([
  "MNStorage.updateSystemMetadata",
  "MNReplication.replicate",
  "MNRead.synchronizationFailed",
  "MNRead.systemMetadataChanged",
  "CNCore.create",
  "CNCore.generateIdentifier",
  "CNCore.reserveIdentifier",
  "CNCore.registerSystemMetadata",
  "CNCore.updateSystemMetadata",
  "CNCore.setObsoletedBy",
  "CNRead.synchronize",
  "CNAuthorization.setAccessPolicy",
  "CNAuthorization.setRightsHolder",
  "CNIdentity.registerAccount",
  "CNIdentity.updateAccount",
  "CNIdentity.mapIdentity",
  "CNIdentity.requestMapIdentity",
  "CNIdentity.createGroup",
  "CNIdentity.updateGroup",
  "CNRegister.register",
  "CNRegister.updateNodeCapabilities",
  "CNReplication.setReplicationPolicy",
  "CNReplication.setReplicationStatus",
  "CNReplication.updateReplicationMetadata",
  "CNReplication.deleteReplicationMetadata",
]);

/** How long the rest of a body answered early is read and dropped before the connection is closed. */
const LINGER_MS = 2000;

export interface TextLimits {
  /** Largest XML document part (system metadata, access policy, node, person, group), bytes. */
  document: number;
  /** Count `bytes` more of buffered text for this request; throws ServiceFailure when the node has no room. */
  reserve(bytes: number): void;
}

declare module "fastify" {
  interface FastifyRequest {
    textLimits: TextLimits;
  }
}

export interface BodyLimits {
  maxDocumentBytes: number;
  maxBufferedTextBytes: number;
}

export function registerRequestBodies(app: FastifyInstance, limits: BodyLimits): void {
  let buffered = 0;
  const unlimited: TextLimits = { document: limits.maxDocumentBytes, reserve: () => {} };
  app.decorateRequest("textLimits", null as unknown as TextLimits);

  app.addHook("onRequest", (request, reply, done) => {
    if (!isMultipart(request)) {
      request.textLimits = unlimited;
      return done();
    }
    let held = 0;
    request.textLimits = {
      document: limits.maxDocumentBytes,
      reserve(bytes) {
        if (buffered + bytes > limits.maxBufferedTextBytes) {
          throw new ServiceFailure(
            "The node is reading as much request text as it allows at once (maxBufferedTextBytes); retry later.",
          );
        }
        buffered += bytes;
        held += bytes;
      },
    };
    reply.raw.once("close", () => {
      buffered -= held;
      held = 0;
    });
    done();
  });

  app.addHook("preHandler", (request, _reply, done) => {
    const method = apiMethodOf(request);
    if (method && NEEDS_SUBJECT.has(method) && !request.session?.authenticated) {
      throw new NotAuthorized(
        `${method} needs an authenticated caller (a client certificate or a bearer token).`,
      );
    }
    done();
  });

  app.addHook("onResponse", (request, _reply, done) => {
    const raw = request.raw;
    if (!raw.complete && hasBody(request) && !request.session?.authenticated) {
      raw.resume();
      const timer = setTimeout(() => raw.socket?.destroy(), LINGER_MS);
      timer.unref();
      raw.once("end", () => clearTimeout(timer));
    }
    done();
  });
}

function isMultipart(request: FastifyRequest): boolean {
  return /^multipart\//i.test(request.headers["content-type"] ?? "");
}

function hasBody(request: FastifyRequest): boolean {
  const length = request.headers["content-length"];
  return (length !== undefined && length !== "0") || request.headers["transfer-encoding"] !== undefined;
}
