/**
 * `d1node upload FILE --to BASE_URL --sysmeta FILE.xml`: send a file of any size to a Member Node through its
 * resumable uploads ({basePath}/uploads, tus 1.0, with tus-js-client), resuming after dropped connections with
 * growing pauses, then MNStorage.create with the finished upload as `objectUpload`. Progress on standard error,
 * the created identifier on standard output. Exit code 2, with one line, when it cannot be done (a bad flag, a
 * file that does not match its system metadata, credentials or a create the node refuses, a node out of reach).
 */
import { createReadStream, readFileSync, statSync } from "node:fs";
import path from "node:path";
import type * as tus from "tus-js-client";
import { Agent, FormData, request } from "undici";
import { D1Error } from "../errors/exceptions.ts";
import { parseError, parseSystemMetadata, type SystemMetadata } from "../types/index.ts";
import { OperatorError } from "./operator-error.ts";
import { mib, progressLine } from "./progress.ts";

export interface UploadFlags {
  to: string;
  sysmeta?: string;
  package?: string;
  pid?: string;
  tokenFile?: string;
  cert?: string;
  key?: string;
  ca?: string;
}

/** Pauses before each retry of a dropped request (ms): doubling to 30 s, then every 30 s for about ten minutes. */
const RETRY_DELAYS = [1, 2, 4, 8, 16, ...Array.from({ length: 20 }, () => 30)].map((s) => s * 1000);
/** Answers no retry can change: credentials, a vanished or refused upload. */
const FINAL_STATUSES = new Set([400, 401, 403, 404, 410, 413]);

/** One file through the resumable upload, then created; its identifier. */
export function uploadOne(file: string, sysmeta: string, flags: UploadFlags): Promise<string> {
  return uploadPlanned(planUpload(file, sysmeta, flags));
}

/** A planned upload sent, then created; its identifier. */
export async function uploadPlanned(plan: Plan): Promise<string> {
  return createObject(plan, await sendFile(plan));
}

export interface Plan {
  file: string;
  size: number;
  root: string;
  sysmetaXml: string;
  sysmeta: SystemMetadata;
  pid: string;
  tokenFile: string | undefined;
  tls: { cert?: Buffer; key?: Buffer; ca?: Buffer };
}

/** The upload of `file` checked against its system metadata and the flags, before anything is sent. */
export function planUpload(file: string, sysmetaFile: string, flags: UploadFlags): Plan {
  let root: URL;
  try {
    root = new URL(flags.to);
  } catch {
    throw new OperatorError(`--to must be a base URL such as https://mn.example.org/mn, not "${flags.to}"`);
  }
  if (root.protocol !== "http:" && root.protocol !== "https:")
    throw new OperatorError("--to must be http or https");
  if ((flags.cert === undefined) !== (flags.key === undefined))
    throw new OperatorError("--cert and --key go together");
  if (!flags.tokenFile && !flags.cert)
    throw new OperatorError("give credentials: --token-file, or --cert and --key");
  const read = (name: string) => {
    try {
      return readFileSync(name);
    } catch (error) {
      throw new OperatorError(`cannot read ${name}: ${(error as Error).message}`);
    }
  };
  const sysmetaXml = read(sysmetaFile).toString("utf8");
  let sysmeta: SystemMetadata;
  try {
    sysmeta = parseSystemMetadata(sysmetaXml);
  } catch (error) {
    throw new OperatorError(`${sysmetaFile} is not valid system metadata: ${describe(error)}`);
  }
  const pid = flags.pid ?? sysmeta.identifier;
  if (pid !== sysmeta.identifier) {
    throw new OperatorError(
      `--pid "${pid}" differs from the system metadata's identifier "${sysmeta.identifier}"`,
    );
  }
  let size: number;
  try {
    size = statSync(file).size;
  } catch (error) {
    throw new OperatorError(`cannot read ${file}: ${(error as Error).message}`);
  }
  if (size !== sysmeta.size) {
    throw new OperatorError(`${file} has ${size} bytes but the system metadata says ${sysmeta.size}`);
  }
  if (flags.tokenFile) read(flags.tokenFile);
  const tls = {
    ...(flags.cert ? { cert: read(flags.cert) } : {}),
    ...(flags.key ? { key: read(flags.key) } : {}),
    ...(flags.ca ? { ca: read(flags.ca) } : {}),
  };
  return {
    file,
    size,
    root: flags.to.replace(/\/+$/, ""),
    sysmetaXml,
    sysmeta,
    pid,
    tokenFile: flags.tokenFile,
    tls,
  };
}

/** The Authorization header: the token file is read before every request, so a renewed token is picked up. */
function authorization(plan: Plan): Record<string, string> {
  if (!plan.tokenFile) return {};
  const token = readFileSync(plan.tokenFile, "utf8").trim();
  return token ? { authorization: `Bearer ${token}` } : {};
}

/** The file through the resumable upload; its URL once the node has every byte. */
async function sendFile(plan: Plan): Promise<string> {
  // Loaded by the upload command alone: every other command (serve) starts without it.
  const tus = await import("tus-js-client");
  const progress = progressLine();
  const started = Date.now();
  const name = path.basename(plan.file);
  return new Promise((resolve, reject) => {
    const upload = new tus.Upload(createReadStream(plan.file), {
      endpoint: `${plan.root}/uploads`,
      uploadSize: plan.size,
      metadata: { filename: name, checksumAlgorithm: plan.sysmeta.checksum.algorithm },
      retryDelays: RETRY_DELAYS,
      httpStack: new tus.DefaultHttpStack(plan.tls),
      onBeforeRequest(req) {
        for (const [header, value] of Object.entries(authorization(plan))) req.setHeader(header, value);
      },
      onShouldRetry(error) {
        const status = error.originalResponse?.getStatus() ?? 0;
        return !FINAL_STATUSES.has(status);
      },
      onProgress(sent, total) {
        progress.update(() => {
          const seconds = (Date.now() - started) / 1000;
          const percent = total > 0 ? ((100 * sent) / total).toFixed(1) : "100";
          return `uploading ${name}: ${mib(sent)} of ${mib(total)} MiB (${percent} %), ${mib(sent / seconds)} MiB/s`;
        });
      },
      onSuccess() {
        progress.finish(
          `uploaded ${name}: ${mib(plan.size)} MiB in ${((Date.now() - started) / 1000).toFixed(0)} s`,
        );
        if (upload.url) resolve(upload.url);
        else reject(new OperatorError("the node answered the upload without its URL"));
      },
      onError(error) {
        progress.finish(`upload of ${name} stopped`);
        reject(new OperatorError(`the upload failed: ${tusFailure(error)}`));
      },
    });
    upload.start();
  });
}

/** MNStorage.create with the finished upload; the identifier the node answers. */
async function createObject(plan: Plan, uploadUrl: string): Promise<string> {
  const body = new FormData();
  body.append("pid", plan.pid);
  body.append("objectUpload", uploadUrl);
  body.append("sysmeta", new Blob([plan.sysmetaXml], { type: "text/xml" }), "sysmeta.xml");
  const dispatcher = new Agent({ connect: plan.tls });
  try {
    const answer = await request(`${plan.root}/v2/object`, {
      method: "POST",
      body,
      headers: authorization(plan),
      dispatcher,
    }).catch((error: unknown) => {
      throw new OperatorError(`${plan.root} could not be reached for create: ${describe(error)}`);
    });
    const text = await answer.body.text();
    if (answer.statusCode !== 200) {
      throw new OperatorError(
        `the node refused create of "${plan.pid}": ${errorText(answer.statusCode, text)}`,
      );
    }
    return /<(?:\w+:)?identifier[^>]*>([^<]*)</.exec(text)?.[1] ?? plan.pid;
  } finally {
    await dispatcher.close();
  }
}

function tusFailure(error: Error): string {
  const response = (error as tus.DetailedError).originalResponse;
  if (response) return errorText(response.getStatus(), response.getBody());
  const cause = (error as tus.DetailedError).causingError;
  return cause ? cause.message : error.message;
}

/** "Exception: description" of a DataONE error document, else the status and the first line. */
function errorText(status: number, body: string): string {
  try {
    const error = parseError(body);
    return `${error.exception}: ${error.description}`;
  } catch {
    const line = body.trim().split("\n")[0] ?? "";
    return `HTTP ${status}${line ? ` ${line}` : ""}`;
  }
}

function describe(error: unknown): string {
  if (error instanceof D1Error) return `${error.exception}: ${error.description}`;
  return error instanceof Error ? error.message : String(error);
}
