/**
 * `d1node upload FILE --to BASE_URL [--sysmeta FILE.xml | computing flags]`: send a file of any size to a Member
 * Node through its resumable uploads ({basePath}/uploads, tus 1.0, with tus-js-client), then MNStorage.create with
 * the finished upload as `objectUpload`. Dropped connections and answers a later try may change are retried with
 * growing pauses, one line each; an upload is remembered until its object is created (upload-memory.ts), so a
 * rerun resumes it or goes straight to the create. A create whose answer was lost is tried again, and counts as
 * done when the node then holds the identifier with the same checksum. Progress on standard error, the created
 * identifier on standard output; exit code 2, with one line, when it cannot be done.
 */
import { createReadStream, readFileSync, statSync } from "node:fs";
import path from "node:path";
import type * as tus from "tus-js-client";
import { Agent, FormData, request } from "undici";
import { D1Error } from "../../errors/exceptions.ts";
import { algorithmKey } from "../../store/algorithms.ts";
import {
  parseError,
  parseSystemMetadata,
  type SystemMetadata,
  serializeSystemMetadata,
} from "../../types/index.ts";
import { OperatorError } from "../operator-error.ts";
import { mib, progressLine } from "../progress.ts";
import { forgetUploads, openUploadMemory, uploadFingerprint } from "./upload-memory.ts";
import { announceRetry, mayChangeOnRetry, RETRY_DELAYS, retryLine } from "./upload-retry.ts";
import { COMPUTING_FLAGS, callerSubject, computeSysmeta, type SysmetaFlags } from "./upload-sysmeta.ts";

export interface UploadFlags extends SysmetaFlags {
  to: string;
  sysmeta?: string;
  package?: string;
  tokenFile?: string;
  cert?: string;
  key?: string;
  ca?: string;
  /** Print the system metadata and send nothing. */
  dryRun?: boolean;
  /** MiB per PATCH request (as given; checked positive); unset: the whole file in one. */
  chunkSize?: string;
}

/** As whom: a token file (read before each request) or a client certificate, and the CA to trust. */
export interface Credentials {
  tokenFile: string | undefined;
  tls: { cert?: Buffer; key?: Buffer; ca?: Buffer };
}

/** Where and as whom: the node's base URL and the caller's credentials. */
export interface Connection extends Credentials {
  root: string;
  /** Bytes per PATCH request (`--chunk-size`); undefined: the whole file in one. */
  chunkBytes?: number | undefined;
}

export interface Plan extends Connection {
  file: string;
  size: number;
  sysmetaXml: string;
  sysmeta: SystemMetadata;
  pid: string;
}

/** One file through the resumable upload, then created; its identifier. */
export async function uploadOne(file: string, flags: UploadFlags): Promise<string> {
  const connection = connectionOf(flags);
  const plan = await planUpload(file, flags.sysmeta, connection, flags);
  if (flags.dryRun) {
    process.stdout.write(plan.sysmetaXml.endsWith("\n") ? plan.sysmetaXml : `${plan.sysmetaXml}\n`);
    return plan.pid;
  }
  return uploadPlanned(plan);
}

/** A planned upload sent, then created; its identifier. */
export async function uploadPlanned(plan: Plan): Promise<string> {
  const memory = await openUploadMemory();
  const fingerprint = uploadFingerprint(plan.file, `${plan.root}/uploads`);
  if (await alreadyCreated(plan, "before")) {
    await dropRemembered(plan, memory, fingerprint);
    return plan.pid;
  }
  const uploadUrl = await sendFile(plan, memory, fingerprint);
  await createObject(plan, uploadUrl);
  await forgetUploads(memory, fingerprint);
  return plan.pid;
}

/** The base URL and credentials of the flags, checked and read. */
export function connectionOf(flags: UploadFlags): Connection {
  let root: URL;
  try {
    root = new URL(flags.to);
  } catch {
    throw new OperatorError(`--to must be a base URL such as https://mn.example.org/mn, not "${flags.to}"`);
  }
  if (root.protocol !== "http:" && root.protocol !== "https:")
    throw new OperatorError("--to must be http or https");
  const chunkBytes = flags.chunkSize === undefined ? undefined : Math.ceil(Number(flags.chunkSize) * 2 ** 20);
  return { root: flags.to.replace(/\/+$/, ""), chunkBytes, ...credentialsOf(flags) };
}

/** The credentials of the flags, checked and read. */
export function credentialsOf(flags: Omit<UploadFlags, "to">): Credentials {
  if ((flags.cert === undefined) !== (flags.key === undefined))
    throw new OperatorError("--cert and --key go together");
  if (!flags.tokenFile && !flags.cert)
    throw new OperatorError("give credentials: --token-file, or --cert and --key");
  if (flags.tokenFile) readOrFail(flags.tokenFile);
  const tls = {
    ...(flags.cert ? { cert: readOrFail(flags.cert) } : {}),
    ...(flags.key ? { key: readOrFail(flags.key) } : {}),
    ...(flags.ca ? { ca: readOrFail(flags.ca) } : {}),
  };
  return { tokenFile: flags.tokenFile, tls };
}

/**
 * The upload of `file`: with `sysmetaFile`, checked against it; without, its system metadata computed from the
 * flags and the file. Before anything is sent.
 */
export async function planUpload(
  file: string,
  sysmetaFile: string | undefined,
  connection: Connection,
  flags: SysmetaFlags,
): Promise<Plan> {
  let size: number;
  try {
    size = statSync(file).size;
  } catch (error) {
    throw new OperatorError(`cannot read ${file}: ${(error as Error).message}`);
  }
  if (sysmetaFile === undefined) {
    const token = connection.tokenFile ? readOrFail(connection.tokenFile).toString("utf8").trim() : undefined;
    const sysmeta = await computeSysmeta(file, callerSubject(token, connection.tls.cert), flags);
    const sysmetaXml = serializeSystemMetadata(sysmeta, "v2");
    return { ...connection, file, size, sysmetaXml, sysmeta, pid: sysmeta.identifier };
  }
  const given = COMPUTING_FLAGS.filter((flag) => flags[flag as keyof SysmetaFlags] !== undefined);
  if (given.length > 0) {
    const names = given.map((flag) => `--${flag.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}`);
    throw new OperatorError(`${names.join(", ")} compute system metadata: give them or --sysmeta, not both`);
  }
  const sysmetaXml = readOrFail(sysmetaFile).toString("utf8");
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
  if (size !== sysmeta.size) {
    throw new OperatorError(`${file} has ${size} bytes but the system metadata says ${sysmeta.size}`);
  }
  return { ...connection, file, size, sysmetaXml, sysmeta, pid };
}

function readOrFail(name: string): Buffer {
  try {
    return readFileSync(name);
  } catch (error) {
    throw new OperatorError(`cannot read ${name}: ${(error as Error).message}`);
  }
}

/** The Authorization header: the token file is read before every request, so a renewed token is picked up. */
export function authorization(connection: Credentials): Record<string, string> {
  if (!connection.tokenFile) return {};
  const token = readFileSync(connection.tokenFile, "utf8").trim();
  return token ? { authorization: `Bearer ${token}` } : {};
}

/**
 * Whether the node already holds the plan's identifier with the same size and checksum (a run or a try whose
 * answer was lost created it). Another object under the identifier, a base URL that is not a Member Node's API
 * (501) or a node out of reach ends the run with one line. `when` says which: "before" anything is sent (nothing
 * found is the usual case), "after" a create was refused.
 */
async function alreadyCreated(plan: Plan, when: "before" | "after"): Promise<boolean> {
  const url = `${plan.root}/v2/meta/${encodeURIComponent(plan.pid)}`;
  const answer = await send(plan, url, { method: "GET" }).catch((error: unknown) => {
    throw new OperatorError(`cannot reach ${plan.root}: ${describe(error)}`);
  });
  if (answer.status === 501) {
    throw new OperatorError(
      `${plan.root} does not answer the Member Node API (HTTP 501 for ${url}): --to is the node's base URL with its base path, e.g. https://mn.example.org/mn`,
    );
  }
  if (answer.status !== 200) return false;
  let held: SystemMetadata;
  try {
    held = parseSystemMetadata(answer.body);
  } catch {
    return false;
  }
  const same =
    held.size === plan.sysmeta.size &&
    algorithmKey(held.checksum.algorithm) === algorithmKey(plan.sysmeta.checksum.algorithm) &&
    held.checksum.value.toLowerCase() === plan.sysmeta.checksum.value.toLowerCase();
  if (!same) {
    if (when === "after") return false;
    throw new OperatorError(
      `"${plan.pid}" is already the identifier of another object on the node (other bytes): choose another --pid`,
    );
  }
  process.stderr.write(`${plan.pid} is on the node with the same checksum: created\n`);
  return true;
}

/** One request with the plan's credentials; its status and body text. */
async function send(
  plan: Plan,
  url: string,
  options: { method: "GET" | "POST" | "DELETE"; body?: FormData },
): Promise<{ status: number; body: string }> {
  const dispatcher = new Agent({ connect: plan.tls });
  try {
    const answer = await request(url, { ...options, headers: authorization(plan), dispatcher });
    return { status: answer.statusCode, body: await answer.body.text() };
  } finally {
    await dispatcher.close();
  }
}

/** Removes from the node and forgets the uploads remembered for the plan's file (its object exists). */
async function dropRemembered(plan: Plan, memory: tus.UrlStorage, fingerprint: string): Promise<void> {
  for (const record of await memory.findUploadsByFingerprint(fingerprint)) {
    if (record.uploadUrl) await send(plan, record.uploadUrl, { method: "DELETE" }).catch(() => undefined);
  }
  await forgetUploads(memory, fingerprint);
}

/** The file through the resumable upload (resuming a remembered one); its URL once the node has every byte. */
async function sendFile(plan: Plan, memory: tus.UrlStorage, fingerprint: string): Promise<string> {
  // Loaded by the upload command alone: every other command (serve) starts without it.
  const tus = await import("tus-js-client");
  const progress = progressLine();
  const started = Date.now();
  const name = path.basename(plan.file);
  let resumedAt: number | undefined;
  let sentSoFar = 0;
  return new Promise((resolve, reject) => {
    const upload = new tus.Upload(createReadStream(plan.file), {
      endpoint: `${plan.root}/uploads`,
      uploadSize: plan.size,
      ...(plan.chunkBytes ? { chunkSize: plan.chunkBytes } : {}),
      metadata: { filename: name, checksumAlgorithm: plan.sysmeta.checksum.algorithm },
      retryDelays: RETRY_DELAYS,
      urlStorage: memory,
      fingerprint: async () => fingerprint,
      // Forgotten once the object is created, not when the bytes are all sent: a failed create resumes there.
      removeFingerprintOnSuccess: false,
      httpStack: new tus.DefaultHttpStack(plan.tls),
      onBeforeRequest(req) {
        for (const [header, value] of Object.entries(authorization(plan))) req.setHeader(header, value);
      },
      onShouldRetry(error, attempt, options) {
        const response = error.originalResponse;
        const status = response?.getStatus() ?? 0;
        if (!mayChangeOnRetry(status, response?.getBody() ?? "")) return false;
        const what = `upload of ${name} (${mib(sentSoFar)} MiB sent)`;
        progress.finish(retryLine(what, status, options.retryDelays?.[attempt] ?? 0));
        return true;
      },
      onProgress(sent, total) {
        resumedAt ??= sent;
        sentSoFar = sent;
        progress.update(() => {
          const seconds = (Date.now() - started) / 1000;
          const percent = total > 0 ? ((100 * sent) / total).toFixed(1) : "100";
          return `uploading ${name}: ${mib(sent)} of ${mib(total)} MiB (${percent} %), ${mib((sent - (resumedAt ?? 0)) / seconds)} MiB/s`;
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
    upload.findPreviousUploads().then(
      (previous) => {
        const last = previous.at(-1);
        if (last) {
          process.stderr.write(`resuming the upload of ${name} started ${last.creationTime}\n`);
          upload.resumeFromPreviousUpload(last);
        }
        upload.start();
      },
      (error: unknown) => reject(new OperatorError(`cannot read the remembered uploads: ${describe(error)}`)),
    );
  });
}

/**
 * MNStorage.create with the finished upload, tried again while the answer may change. IdentifierNotUnique, or
 * any refusal after a try whose answer was lost, is success when the node holds the identifier with the plan's
 * checksum (the lost try created it).
 */
async function createObject(plan: Plan, uploadUrl: string): Promise<void> {
  const what = `create of ${plan.pid}`;
  for (let attempt = 0; ; attempt++) {
    const body = new FormData();
    body.append("pid", plan.pid);
    body.append("objectUpload", uploadUrl);
    body.append("sysmeta", new Blob([plan.sysmetaXml], { type: "text/xml" }), "sysmeta.xml");
    const delay = RETRY_DELAYS[attempt];
    const answer = await send(plan, `${plan.root}/v2/object`, { method: "POST", body }).catch(
      (error: unknown) => {
        if (delay === undefined)
          throw new OperatorError(`${plan.root} could not be reached for create: ${describe(error)}`);
        return { status: 0, body: "" };
      },
    );
    if (answer.status === 200) return;
    const retried = attempt > 0;
    const refused = answer.status >= 400 && answer.status < 500;
    if ((answer.status === 409 || (retried && refused)) && (await alreadyCreated(plan, "after"))) return;
    if (delay === undefined || !mayChangeOnRetry(answer.status, answer.body) || answer.status === 409) {
      throw new OperatorError(
        `the node refused create of "${plan.pid}": ${errorText(answer.status, answer.body)}; the bytes stay uploaded: a rerun creates without sending them again`,
      );
    }
    await announceRetry(what, answer.status, delay);
  }
}

function tusFailure(error: Error): string {
  const response = (error as tus.DetailedError).originalResponse;
  if (response) return errorText(response.getStatus(), response.getBody());
  const cause = (error as tus.DetailedError).causingError;
  return cause ? cause.message : error.message;
}

/** "Exception: description" of a DataONE error document, else the status and the first line. */
export function errorText(status: number, body: string): string {
  try {
    const error = parseError(body);
    return `${error.exception}: ${error.description}`;
  } catch {
    const line = body.trim().split("\n")[0] ?? "";
    return `HTTP ${status}${line ? ` ${line}` : ""}`;
  }
}

export function describe(error: unknown): string {
  if (error instanceof D1Error) return `${error.exception}: ${error.description}`;
  if (error instanceof Error) {
    const code = (error as { code?: string }).code ?? (error.cause as { code?: string } | undefined)?.code;
    return code && !error.message.includes(code) ? `${error.message} (${code})` : error.message;
  }
  return String(error);
}
