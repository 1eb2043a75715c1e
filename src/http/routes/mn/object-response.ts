/**
 * Answers to GET and HEAD of object bytes (MNRead.get, MNRead.getReplica, MNRead.describe and the CN's): 200, or
 * 206, 304 and 416 by the request's Range and conditional headers (`conditional-read.ts`), with the object's
 * headers. A 304 or 416 delivers no bytes, so the service logs no event for it.
 */
import type { FastifyReply, FastifyRequest } from "fastify";
import type { Choose, ObjectBody, Wanted } from "../../../services/mn/read.ts";
import type { StoredObject } from "../../../types/stored-object.ts";
import { answerRead, contentRange, type ReadAnswer, unsatisfiedRange } from "../../conditional-read.ts";
import type { RouteScope } from "./context.ts";
import { objectHeaders, validatorsOf } from "./object-headers.ts";

type ObjectRead = (choose: Choose) => Promise<{ object: StoredObject; body: ObjectBody | undefined }>;

/** GET: `read` finds the object and checks access; the answer is chosen from the object it found. */
export async function answerObjectGet(
  request: FastifyRequest,
  reply: FastifyReply,
  scope: RouteScope,
  read: ObjectRead,
): Promise<FastifyReply> {
  let answer = { status: 200 } as ReadAnswer;
  const { object, body } = await read((found) => {
    answer = answerRead(request.headers, validatorsOf(found), found.sysmeta.size);
    return wantedBy(answer);
  });
  return send(reply, scope, object, answer, body);
}

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
  if (answer.status === 200) return { bytes: "all" };
  if (answer.status === 206) return { bytes: "range", ...answer.range };
  return { bytes: "none" };
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
