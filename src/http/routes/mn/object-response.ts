/**
 * Answers to GET and HEAD of object bytes (MNRead.get, MNRead.getReplica, MNRead.describe and the CN's): 200, or
 * 206, 304 and 416 by the request's Range and conditional headers (`conditional-read.ts`), with the object's
 * headers. A 304 or 416 delivers no bytes, so the service logs no event for it.
 */
import type { FastifyReply, FastifyRequest } from "fastify";
import { ALL_BYTES, type Choose, NO_BYTES, type ObjectBody, type Wanted } from "../../../services/mn/read.ts";
import type { StoredObject } from "../../../types/stored-object.ts";
import { answerRead, contentRange, type ReadAnswer, unsatisfiedRange } from "../../conditional-read.ts";
import type { RouteScope } from "../scope.ts";
import { objectHeaders, validatorsOf } from "./object-headers.ts";

type Found = { object: StoredObject; body: ObjectBody | undefined };
type ObjectRead = (choose: Choose) => Promise<Found>;

/** GET: `read` finds the object and checks access; the answer is chosen from the object it found. */
export async function answerObjectGet(
  request: FastifyRequest,
  reply: FastifyReply,
  scope: RouteScope,
  read: ObjectRead,
): Promise<FastifyReply> {
  const chosen = new Chosen(request);
  const { object, body } = await read(chosen.choose);
  return send(reply, scope, object, chosen.answer, body);
}

/**
 * GET when `read` finds the object without waiting (services/mn/read.ts, getNow): answered at once, with no
 * promise; false when it did not (then answerObjectGet).
 */
export function answerObjectGetNow(
  request: FastifyRequest,
  reply: FastifyReply,
  scope: RouteScope,
  read: (choose: Choose) => Found | undefined,
): boolean {
  const chosen = new Chosen(request);
  const found = read(chosen.choose);
  if (!found) return false;
  send(reply, scope, found.object, chosen.answer, found.body);
  return true;
}

/** The answer to the request, chosen once the object is found. */
class Chosen {
  answer: ReadAnswer = OK;
  constructor(private readonly request: FastifyRequest) {}
  readonly choose: Choose = (found) => {
    this.answer = answerRead(this.request.headers, validatorsOf(found), found.sysmeta.size);
    return wantedBy(this.answer);
  };
}

const OK: ReadAnswer = Object.freeze({ status: 200 });

/** HEAD (describe): the object's headers, or 304 when the caller's copy is current. Range is ignored. */
export function answerObjectHead(
  request: FastifyRequest,
  reply: FastifyReply,
  scope: RouteScope,
  object: StoredObject,
): FastifyReply {
  const answer = answerRead(request.headers, validatorsOf(object), object.sysmeta.size, false);
  return send(reply, scope, object, answer, undefined);
}

function wantedBy(answer: ReadAnswer): Wanted {
  if (answer.status === 200) return ALL_BYTES;
  if (answer.status === 206) return { bytes: "range", ...answer.range };
  return NO_BYTES;
}

function send(
  reply: FastifyReply,
  scope: RouteScope,
  object: StoredObject,
  answer: ReadAnswer,
  body: ObjectBody | undefined,
): FastifyReply {
  const headers = objectHeaders(scope, object);
  const size = object.sysmeta.size;
  switch (answer.status) {
    case 304: {
      // "The server generating a 304 response MUST generate ... ETag ... that would have been sent in a 200".
      const { etag, "last-modified": lastModified } = headers;
      return reply
        .code(304)
        .headers({ ...(etag ? { etag } : {}), "last-modified": lastModified })
        .send();
    }
    case 416:
      return reply
        .code(416)
        .headers({ "content-range": unsatisfiedRange(size), "accept-ranges": "bytes" })
        .send();
    case 206: {
      const { range } = answer;
      return reply
        .code(206)
        .headers({
          ...headers,
          "content-length": String(range.end - range.start + 1),
          "content-range": contentRange(range, size),
        })
        .send(body);
    }
    default:
      return reply.code(200).headers(headers).send(body);
  }
}
