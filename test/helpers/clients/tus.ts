/** A raw tus 1.0 client for tests: create an upload, send bytes (optionally cut off mid-request), ask the offset. */
import http from "node:http";

const TUS = { "Tus-Resumable": "1.0.0" };

export interface TusAnswer {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: string;
}

function send(
  target: string,
  method: string,
  headers: Record<string, string>,
  body?: { bytes: Buffer; cutAfter?: number },
): Promise<TusAnswer | "cut"> {
  return new Promise((resolve, reject) => {
    const request = http.request(target, { method, headers: { ...TUS, ...headers } }, (response) => {
      let text = "";
      response.setEncoding("utf8");
      response.on("data", (chunk) => {
        text += chunk;
      });
      response.on("end", () =>
        resolve({ status: response.statusCode ?? 0, headers: response.headers, body: text }),
      );
    });
    if (body?.cutAfter !== undefined) {
      // The connection is killed after `cutAfter` bytes of the body went out: no end, no answer.
      request.on("error", () => resolve("cut"));
      request.write(body.bytes.subarray(0, body.cutAfter), () => {
        setTimeout(() => request.destroy(), 50);
      });
      return;
    }
    request.on("error", reject);
    request.end(body?.bytes);
  });
}

async function answered(promise: Promise<TusAnswer | "cut">): Promise<TusAnswer> {
  const answer = await promise;
  if (answer === "cut") throw new Error("unexpected cut");
  return answer;
}

const bearer = (token?: string): Record<string, string> =>
  token ? { Authorization: `Bearer ${token}` } : {};

/** POST {baseUrl}/uploads: the answer (201 with Location on success). */
export function createUpload(
  baseUrl: string,
  token: string | undefined,
  length: number,
  metadata: Record<string, string> = {},
): Promise<TusAnswer> {
  const encoded = Object.entries(metadata)
    .map(([k, v]) => `${k} ${Buffer.from(v).toString("base64")}`)
    .join(",");
  return answered(
    send(`${baseUrl}/uploads`, "POST", {
      ...bearer(token),
      "Upload-Length": String(length),
      ...(encoded ? { "Upload-Metadata": encoded } : {}),
    }),
  );
}

/** HEAD: the answer; `upload-offset` holds how many bytes the node has. */
export function headUpload(location: string, token: string | undefined): Promise<TusAnswer> {
  return answered(send(location, "HEAD", bearer(token)));
}

/** PATCH `bytes` at `offset`; with `cutAfter`, the connection is killed after that many bytes ("cut"). */
export function patchUpload(
  location: string,
  token: string | undefined,
  offset: number,
  bytes: Buffer,
  cutAfter?: number,
): Promise<TusAnswer | "cut"> {
  const headers = {
    ...bearer(token),
    "Upload-Offset": String(offset),
    "Content-Type": "application/offset+octet-stream",
    ...(cutAfter === undefined ? { "Content-Length": String(bytes.length) } : {}),
  };
  return send(location, "PATCH", headers, { bytes, ...(cutAfter === undefined ? {} : { cutAfter }) });
}
