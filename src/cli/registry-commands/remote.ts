/**
 * Calls the command line makes to a running node (registration with a CN, the CN's node registry), authenticated
 * as `--token` says, else with the node certificate (over https), else with a short-lived token signed by the
 * data folder's own key for `subject` (on the CN's machine, the CN itself), else as the node itself.
 */
import { type FormData, request } from "undici";
import { nodeCallHeaders, nodeDispatcher } from "../../auth/node-credentials.ts";
import { mintToken } from "../../auth/tokens.ts";
import type { Config } from "../../config/config.ts";
import { parseError } from "../../types/index.ts";
import { existingSigningKey } from "../data-folder.ts";
import { OperatorError } from "../operator-error.ts";

export interface RemoteAnswer {
  status: number;
  body: string;
  /** "Exception: description" of a DataONE error document, else "HTTP status". */
  failure: string;
}

export interface RemoteCall {
  method: "GET" | "POST" | "PUT" | "DELETE";
  url: string;
  body?: FormData;
  token?: string | undefined;
  /** Sign a token for this subject with the data folder's key when no other credential is given. */
  localSubject?: string | undefined;
  /** No credentials at all (a public document): nothing is read from, or created in, the data folder. */
  anonymous?: boolean;
}

export async function callRunningNode(config: Readonly<Config>, call: RemoteCall): Promise<RemoteAnswer> {
  let headers: Record<string, string>;
  if (call.anonymous) headers = {};
  else if (call.token) headers = { authorization: `Bearer ${call.token}` };
  else if (config.nodeCert && call.url.startsWith("https:")) headers = {};
  else if (call.localSubject) {
    const { privateKey } = existingSigningKey(config);
    const token = await mintToken(privateKey, { subject: call.localSubject, ttlSeconds: 300 });
    headers = { authorization: `Bearer ${token}` };
  } else headers = await nodeCallHeaders(config, call.url);
  let status: number;
  let body: string;
  try {
    const response = await request(call.url, {
      method: call.method,
      dispatcher: nodeDispatcher(config),
      headers,
      ...(call.body ? { body: call.body } : {}),
      headersTimeout: 30_000,
      bodyTimeout: 30_000,
    });
    status = response.statusCode;
    body = await response.body.text();
  } catch (error) {
    const cause =
      error instanceof Error ? ((error.cause as Error | undefined)?.message ?? error.message) : "";
    throw new OperatorError(`${call.method} ${call.url} could not be reached: ${cause || String(error)}`);
  }
  let failure = `HTTP ${status}`;
  if (status >= 300) {
    try {
      const error = parseError(body);
      failure = `${error.exception}: ${error.description}`;
    } catch {}
  }
  return { status, body, failure };
}
