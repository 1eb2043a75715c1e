/**
 * Identifiers in paths. Clients percent-encode the identifier as one path segment (`/` as %2F, space as %20,
 * a literal "%2F" as %252F; `+` stays `+`). The raw URL is split after the route's fixed prefix and decoded
 * exactly once, so the router never sees a decoded identifier.
 */
import type { FastifyRequest } from "fastify";
import { InvalidRequest, NotFound } from "../errors/exceptions.ts";

/** The decoded remainder of the raw path after `prefix` (e.g. "/mn/v2/object/"), an identifier. */
export function identifierAfter(request: FastifyRequest, prefix: string): string {
  const decoded = pathAfter(request, prefix);
  refuseImpossibleIdentifier(decoded);
  return decoded;
}

/** The decoded remainder of the raw path after `prefix`, whatever it holds (e.g. a query). */
export function pathAfter(request: FastifyRequest, prefix: string): string {
  const raw = request.raw.url ?? "";
  const queryAt = raw.indexOf("?");
  const rawPath = queryAt === -1 ? raw : raw.slice(0, queryAt);
  const encoded = rawPath.startsWith(prefix)
    ? rawPath.slice(prefix.length)
    : (request.params as { "*": string })["*"];
  try {
    return decodeURIComponent(encoded);
  } catch {
    throw new InvalidRequest(
      `The identifier in the URL path is not valid percent-encoded UTF-8: "${encoded}".`,
    );
  }
}

/**
 * An identifier holding U+0000 cannot exist (XML cannot carry the character, and PostgreSQL refuses it in
 * text): NotFound, answered before any lookup.
 */
export function refuseImpossibleIdentifier(id: string): void {
  if (id.includes("\u0000")) {
    throw new NotFound(`No object, node or subject has an identifier containing a NUL character (%00).`, {
      pid: id.replaceAll("\u0000", "\uFFFD"),
    });
  }
}

/** A path identifier that must be there: InvalidRequest when it is missing or empty. */
export function requiredId(id: string | undefined): string {
  if (id === undefined || id === "") throw new InvalidRequest("The identifier is missing from the request.");
  refuseImpossibleIdentifier(id);
  return id;
}
