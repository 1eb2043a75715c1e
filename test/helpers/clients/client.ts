/** A small HTTP client for tests: DataONE calls with fetch and multipart bodies. */
import assert from "node:assert/strict";
import { type SysmetaOptions, sysmetaXml } from "../data/sysmeta.ts";
import { validateXml } from "../validation/xmllint.ts";

export interface Caller {
  baseUrl: string;
  token?: string;
  version?: "v1" | "v2";
}

export function url(c: Caller, path: string): string {
  return `${c.baseUrl}/${c.version ?? "v2"}${path}`;
}

/** Path segment encoding as the DataONE clients do it (encodePathElement). */
export function enc(id: string): string {
  return encodeURIComponent(id)
    .replace(/%3A/g, ":")
    .replace(/%40/g, "@")
    .replace(/%24/g, "$")
    .replace(/%2C/g, ",")
    .replace(/%3D/g, "=")
    .replace(/%26/g, "&");
}

export function call(c: Caller, method: string, path: string, init: RequestInit = {}): Promise<Response> {
  const headers = new Headers(init.headers);
  if (c.token) headers.set("Authorization", `Bearer ${c.token}`);
  return fetch(url(c, path), { ...init, method, headers });
}

export function form(parts: Record<string, string | Buffer | { xml: string }>): FormData {
  const body = new FormData();
  for (const [name, value] of Object.entries(parts)) {
    if (typeof value === "string") body.append(name, value);
    else if (Buffer.isBuffer(value)) body.append(name, new Blob([new Uint8Array(value)]), "content.bin");
    else body.append(name, new Blob([value.xml], { type: "text/xml" }), `${name}.xml`);
  }
  return body;
}

export async function create(
  c: Caller,
  pid: string,
  bytes: Buffer,
  options: SysmetaOptions = {},
): Promise<Response> {
  const sysmeta = sysmetaXml(pid, bytes, { version: c.version ?? "v2", ...options });
  return call(c, "POST", "/object", { body: form({ pid, object: bytes, sysmeta: { xml: sysmeta } }) });
}

export async function update(
  c: Caller,
  pid: string,
  newPid: string,
  bytes: Buffer,
  options: SysmetaOptions = {},
): Promise<Response> {
  const sysmeta = sysmetaXml(newPid, bytes, { version: c.version ?? "v2", obsoletes: pid, ...options });
  return call(c, "PUT", `/object/${enc(pid)}`, {
    body: form({ newPid, object: bytes, sysmeta: { xml: sysmeta } }),
  });
}

/** The exception name and detail code of an error response. */
export async function errorOf(
  response: Response,
): Promise<{ status: number; name: string; detailCode: string; body: string }> {
  const body = await response.text();
  const name = /name="([^"]+)"/.exec(body)?.[1] ?? "";
  const detailCode = /detailCode="([^"]+)"/.exec(body)?.[1] ?? "";
  return { status: response.status, name, detailCode, body };
}

/** The body of a 200 XML response, checked against the DataONE XSDs. */
export async function okXml(response: Response): Promise<string> {
  const body = await response.text();
  assert.equal(response.status, 200, body);
  await validateXml(body);
  return body;
}

/** errorOf, with the exception document checked against dataoneErrors.xsd. */
export async function checkedError(response: Response): ReturnType<typeof errorOf> {
  const error = await errorOf(response);
  await validateXml(error.body);
  return error;
}

/** MNStorage.updateSystemMetadata (v2) with a whole system metadata document. */
export function updateSysmeta(c: Caller, pid: string, xml: string): Promise<Response> {
  return call({ ...c, version: "v2" }, "PUT", "/meta", { body: form({ pid, sysmeta: { xml } }) });
}
