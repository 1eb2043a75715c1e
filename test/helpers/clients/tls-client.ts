/**
 * HTTPS calls with a client certificate (fetch cannot present one): one keep-alive agent per identity, request
 * bodies from FormData, and the DataONE error (name, detail code) of a failure, from the body or, for HEAD, the
 * DataONE-Exception-* headers.
 */
import https from "node:https";
import type { Issued } from "../data/pki.ts";

export interface TlsCaller {
  baseUrl: string;
  ca: string;
  cert?: Issued | undefined;
  token?: string | undefined;
  headers?: Record<string, string>;
}

export interface TlsResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
  /** The exception name and detail code of a failure ("" on success). */
  error: string;
  detailCode: string;
}

const agents = new Map<string, https.Agent>();

function agentFor(caller: TlsCaller): https.Agent {
  const key = `${caller.ca}\n${caller.cert?.certFile ?? ""}`;
  let agent = agents.get(key);
  if (!agent) {
    agent = new https.Agent({
      keepAlive: true,
      ca: caller.ca,
      ...(caller.cert ? { cert: caller.cert.cert, key: caller.cert.key } : {}),
    });
    agents.set(key, agent);
  }
  return agent;
}

/** Close every keep-alive connection the helper opened. */
export function closeTlsAgents(): void {
  for (const agent of agents.values()) agent.destroy();
  agents.clear();
}

export async function tlsCall(
  caller: TlsCaller,
  method: string,
  path: string,
  body?: FormData,
): Promise<TlsResponse> {
  const headers: Record<string, string> = { ...caller.headers };
  if (caller.token) headers.authorization = `Bearer ${caller.token}`;
  let payload: Buffer | undefined;
  if (body) {
    const encoded = new Response(body);
    payload = Buffer.from(await encoded.arrayBuffer());
    headers["content-type"] = encoded.headers.get("content-type") ?? "";
    headers["content-length"] = String(payload.length);
  }
  const url = new URL(`${caller.baseUrl}${path}`);
  return new Promise((resolve, reject) => {
    const request = https.request(url, { method, headers, agent: agentFor(caller) }, (response) => {
      const chunks: Buffer[] = [];
      response.on("data", (chunk: Buffer) => chunks.push(chunk));
      response.on("end", () => {
        const text = Buffer.concat(chunks).toString("utf8");
        const header = (name: string) => String(response.headers[name] ?? "");
        const failed = (response.statusCode ?? 0) >= 400;
        resolve({
          status: response.statusCode ?? 0,
          headers: response.headers,
          body: text,
          error: failed ? (/name="([^"]+)"/.exec(text)?.[1] ?? header("dataone-exception-name")) : "",
          detailCode: failed
            ? (/detailCode="([^"]+)"/.exec(text)?.[1] ?? header("dataone-exception-detailcode"))
            : "",
        });
      });
      response.on("error", reject);
    });
    request.on("error", reject);
    request.end(payload);
  });
}
