/**
 * The identifier of a CNCore.reserveIdentifier POST: the `pid` (or `id`, as the API text names it) field of a
 * multipart body, as the API sends it, or of a form-encoded one, as MetacatUI sends it
 * (CollectionModel.reserveSeriesId posts `{pid}` with jQuery's default encoding).
 */
import type { FastifyInstance, FastifyRequest } from "fastify";
import { readMultipart, SIMPLE_VALUE_BYTES } from "./multipart.ts";
import { parseQueryString, type Query, stringParam } from "./params.ts";

/** A form-encoded reservation carries one identifier: a few KiB at most. */
const MAX_FORM_BYTES = 16 * 1024;

/** Lets the routes of this (encapsulated) scope read form-encoded bodies. */
export function acceptFormBodies(scope: FastifyInstance): void {
  scope.addContentTypeParser(
    "application/x-www-form-urlencoded",
    { parseAs: "string", bodyLimit: MAX_FORM_BYTES },
    (_request, body, done) => done(null, parseQueryString(String(body))),
  );
}

export async function reservedIdentifierOf(request: FastifyRequest): Promise<string | undefined> {
  if (request.isMultipart()) {
    const body = await readMultipart(request, { maxPart: SIMPLE_VALUE_BYTES });
    return body.parts.get("pid") ?? body.parts.get("id");
  }
  const form = (request.body ?? {}) as Query;
  return stringParam(form, "pid") ?? stringParam(form, "id");
}
