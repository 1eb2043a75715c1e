/**
 * Hostile clients over plain HTTP requests:
 * - hostile origins (`null`, https://evil.example) probing with credentials: an answer that echoes the origin
 *   together with `Access-Control-Allow-Credentials: true` lets that page act as the user: a security error;
 * - NUL bytes and malformed percent-encodings in identifiers: a DataONE error (4xx), never a 5xx or another body;
 * - multipart bodies without a boundary: InvalidRequest (400);
 * - a validly signed token without `exp`: refused with InvalidToken (401), as one that never expires.
 */
import type { KeyObject } from "node:crypto";
import { SignJWT } from "jose";
import { MULTIPART, multipart, uniqueId } from "./bodies.ts";
import { type Answer, dataoneError, exchange } from "./http.ts";
import { describe, type Tally } from "./tally.ts";

export interface HostileContext {
  baseUrl: string;
  /** The honest clients' token: hostile probes carry it where a stolen or replayed credential would be used. */
  token: string;
  subject: string;
  tally: Tally;
}

const ORIGINS = ["null", "https://evil.example"];
const TIMEOUT_MS = 30_000;

export async function hostileOrigins(ctx: HostileContext): Promise<void> {
  const kind = "hostile origin";
  for (const origin of ORIGINS) {
    const probes: { method: string; path: string; headers: Record<string, string> }[] = [
      {
        method: "GET",
        path: "/v2/object?count=1",
        headers: { authorization: `Bearer ${ctx.token}`, cookie: "JSESSIONID=soak" },
      },
      { method: "GET", path: "/v2/monitor/ping", headers: { cookie: "JSESSIONID=soak" } },
      {
        method: "OPTIONS",
        path: "/v2/object",
        headers: {
          "access-control-request-method": "POST",
          "access-control-request-headers": "authorization",
        },
      },
    ];
    for (const probe of probes) {
      const answer = await exchange({
        method: probe.method,
        url: `${ctx.baseUrl}${probe.path}`,
        headers: { origin, ...probe.headers },
        timeoutMs: TIMEOUT_MS,
      });
      ctx.tally.count(kind);
      ctx.tally.status(kind, answer);
      const echoed = answer.headers["access-control-allow-origin"];
      const credentials =
        String(answer.headers["access-control-allow-credentials"] ?? "").toLowerCase() === "true";
      if ((echoed === origin || echoed === "*") && credentials) {
        ctx.tally.problem(
          "security",
          kind,
          `${probe.method} ${probe.path} from Origin ${origin}`,
          `Access-Control-Allow-Origin: ${echoed} with Access-Control-Allow-Credentials: true`,
        );
      } else if (answer.status === 0 || answer.status >= 500) {
        ctx.tally.problem(
          "hostile",
          kind,
          `${probe.method} ${probe.path} from Origin ${origin}`,
          describe(answer),
        );
      }
    }
  }
}

/** Identifiers with NUL bytes, bad escapes, overlong UTF-8, lone surrogates; in paths and in a create's pid part. */
const BAD_IDS = [
  "soak%00nul",
  "%00",
  "soak%zz",
  "soak%",
  "soak%E0%A4%A",
  "%C0%AF",
  "%ED%A0%80",
  "soak%2500%00",
];

export async function badIdentifiers(ctx: HostileContext): Promise<void> {
  const kind = "bad identifier";
  const auth = { authorization: `Bearer ${ctx.token}` };
  for (const id of BAD_IDS) {
    const calls = [
      { method: "GET", path: `/v2/object/${id}` },
      { method: "HEAD", path: `/v2/object/${id}` },
      { method: "GET", path: `/v2/meta/${id}` },
      { method: "GET", path: `/v1/checksum/${id}` },
      { method: "PUT", path: `/v2/archive/${id}` },
      { method: "GET", path: `/v2/object?formatId=${id}` },
      { method: "GET", path: `/v2/query/solr/?q=id:${id}` },
    ];
    for (const call of calls) {
      const answer = await exchange({
        method: call.method,
        url: `${ctx.baseUrl}${call.path}`,
        headers: auth,
        timeoutMs: TIMEOUT_MS,
      });
      expectDataoneRefusal(ctx.tally, kind, `${call.method} ${call.path}`, answer, call.path.includes("?"));
    }
  }
  const pid = `${uniqueId("soak-nul")}\u0000x`;
  const body = multipart({ pid, sysmeta: "<not-read/>" });
  const answer = await exchange({
    method: "POST",
    url: `${ctx.baseUrl}/v2/object`,
    headers: { ...auth, "content-type": MULTIPART, "content-length": String(body.length) },
    body: body.body,
    timeoutMs: TIMEOUT_MS,
  });
  expectDataoneRefusal(ctx.tally, kind, "POST /v2/object with a NUL byte in the pid part", answer, false);
}

/**
 * A DataONE error document (or, on HEAD, the DataONE-Exception-Name header) with a 4xx status. Listing and
 * search calls may instead answer 200 (the value matches nothing).
 */
function expectDataoneRefusal(
  tally: Tally,
  kind: string,
  what: string,
  answer: Answer,
  mayMatchNothing: boolean,
): void {
  tally.count(kind);
  tally.status(kind, answer);
  if (mayMatchNothing && answer.status === 200) return;
  const isHead = what.startsWith("HEAD ");
  const dataone = isHead
    ? answer.headers["dataone-exception-name"] !== undefined
    : dataoneError(answer.body) !== undefined;
  if (answer.status < 400 || answer.status >= 500 || !dataone)
    tally.problem("hostile", kind, what, describe(answer));
}

/** multipart/form-data without its boundary parameter, on create and updateSystemMetadata. */
export async function missingBoundary(ctx: HostileContext): Promise<void> {
  const kind = "multipart without boundary";
  const calls = [
    { method: "POST", path: "/v2/object" },
    { method: "PUT", path: "/v2/meta" },
    { method: "POST", path: "/v2/generate" },
  ];
  const body = multipart({ pid: uniqueId("soak-noboundary"), scheme: "UUID" });
  for (const call of calls) {
    const answer = await exchange({
      method: call.method,
      url: `${ctx.baseUrl}${call.path}`,
      headers: {
        authorization: `Bearer ${ctx.token}`,
        "content-type": "multipart/form-data",
        "content-length": String(body.length),
      },
      body: multipartText(body),
      timeoutMs: TIMEOUT_MS,
    });
    ctx.tally.count(kind);
    ctx.tally.status(kind, answer);
    if (answer.status !== 400 || dataoneError(answer.body)?.name !== "InvalidRequest") {
      ctx.tally.problem(
        "hostile",
        kind,
        `${call.method} ${call.path}: expected 400 InvalidRequest`,
        describe(answer),
      );
    }
  }
}

/** A token signed with the node's own key for the administrator, but without `exp`. */
export async function tokenWithoutExpiry(ctx: HostileContext, signingKey: KeyObject): Promise<void> {
  const kind = "token without exp";
  const token = await new SignJWT({ userId: ctx.subject })
    .setProtectedHeader({ alg: "RS256", typ: "JWT" })
    .setSubject(ctx.subject)
    .setIssuedAt()
    .sign(signingKey);
  const body = multipart({ scheme: "UUID" });
  const calls: { method: string; path: string; body?: AsyncIterable<Buffer>; length?: number }[] = [
    { method: "POST", path: "/v2/generate", body: body.body, length: body.length },
    { method: "GET", path: "/v2/log?count=1" },
  ];
  for (const call of calls) {
    const headers: Record<string, string> = { authorization: `Bearer ${token}` };
    if (call.body)
      Object.assign(headers, { "content-type": MULTIPART, "content-length": String(call.length) });
    const answer = await exchange({
      method: call.method,
      url: `${ctx.baseUrl}${call.path}`,
      headers,
      timeoutMs: TIMEOUT_MS,
      ...(call.body ? { body: call.body } : {}),
    });
    ctx.tally.count(kind);
    ctx.tally.status(kind, answer);
    if (answer.status >= 200 && answer.status < 300) {
      ctx.tally.problem(
        "security",
        kind,
        `${call.method} ${call.path} accepted a token that never expires`,
        describe(answer),
      );
    } else if (answer.status !== 401 || dataoneError(answer.body)?.name !== "InvalidToken") {
      ctx.tally.problem(
        "hostile",
        kind,
        `${call.method} ${call.path}: expected 401 InvalidToken`,
        describe(answer),
      );
    }
  }
}

async function* multipartText(body: { body: AsyncIterable<Buffer> }): AsyncIterable<Buffer> {
  yield* body.body;
}
