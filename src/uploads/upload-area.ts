/**
 * Resumable uploads (tus 1.0, through @tus/server), each one's record in the database and its bytes where the
 * object store keeps uploads (every process of the node sees both): who owns each one, the periodic removal of
 * expired ones, and handing a finished one to MNStorage.create / update as staged bytes (`objectUpload`). Rules:
 * docs/decisions.md, "Resumable uploads" and "Uploads across machines".
 */
import { mkdir } from "node:fs/promises";
import type { IncomingMessage, ServerResponse } from "node:http";
import path from "node:path";
import { Server } from "@tus/server";
import type { UploadLocks } from "../db/objects/upload-locks.ts";
import type { UploadRecord, UploadRecords } from "../db/upload-records.ts";
import { InvalidRequest, NotAuthorized } from "../errors/exceptions.ts";
import { algorithmKey, unsupportedAlgorithm } from "../store/algorithms.ts";
import type { ObjectStore, StagedObject } from "../store/types.ts";
import type { UploadPlace } from "../store/upload-place.ts";
import { ALGORITHM_METADATA, DigestingFileStore } from "./digesting-file-store.ts";
import type { ResumableStore } from "./resumable-store.ts";
import { S3UploadStore } from "./s3-upload-store.ts";
import { answerFailure, exceptionAnswer, type FailureLog, StalledBody } from "./tus-failures.ts";
import { isUploadId } from "./upload-id.ts";
import { UploadLocker } from "./upload-locker.ts";
import { metadataOf, OWNER_METADATA } from "./upload-record.ts";

/** One tus request, as the route checked it. */
export interface UploadCall {
  /** The caller (authenticated; the route checked it may submit). */
  subject: string;
  /** The upload the URL names, validated by `isUploadId`; none for a creation (POST) or OPTIONS on the root. */
  id: string | undefined;
  /** Where failures are logged (the client is told no more than what failed). */
  log: FailureLog;
  /**
   * Called before a failure is answered: the library closes the connection after that answer, so what is left of
   * the request body is read first (a client still sending would otherwise see a reset, not the answer).
   */
  settleBody: () => Promise<void>;
}

export interface UploadAreaOptions {
  /** Where uploads keep their bytes (the object store's place); absent: the folder `uploads` of `dataDir`. */
  place: UploadPlace | undefined;
  dataDir: string;
  /** The uploads' records (the database's). */
  records: UploadRecords;
  /** The public base URL of the node's API ({baseUrl}/uploads/{id} is an upload's URL), once it listens. */
  baseUrl: () => string;
  basePath: string;
  /** The node's id, in the exceptions failed upload requests answer. */
  nodeId: string;
  maxSize: number;
  /** Uploads one subject may hold at once. */
  maxOpen: number;
  expirySeconds: number;
  /** Holds uploads across the processes that share them (the database's; closed with the area). */
  locks: UploadLocks;
  /** How often expired uploads are looked for (default: a tenth of the expiry, at most an hour). */
  cleanupIntervalMs?: number;
}

export interface UploadArea {
  /** Answer one tus request; the upload library reads the upload id from `call`, never from the URL. */
  handle(req: IncomingMessage, res: ServerResponse, call: UploadCall): Promise<void>;
  /**
   * Ends the PATCH writing into upload `id`, which sent nothing for `idleMs`: answered InvalidRequest, what arrived
   * kept. False when no body is being written into it (the caller closes the connection then).
   */
  endStalled(id: string, idleMs: number): boolean;
  /** NotAuthorized when upload `id` exists and belongs to someone else than `subject`. */
  requireOwner(id: string, subject: string): Promise<void>;
  /**
   * A finished upload of `subject`, named by its URL or id, as staged bytes for the write core. Committing them
   * uses the upload up; discarding them (a refused create) leaves it in place until it expires.
   */
  take(reference: string, subject: string, store: ObjectStore): Promise<StagedObject>;
  /** Remove expired uploads now; returns how many. */
  removeExpired(): Promise<number>;
  /** Stop removing expired uploads and stop the hasher threads. */
  close(): Promise<void>;
}

export async function openUploadArea(options: UploadAreaOptions): Promise<UploadArea> {
  const store = await openResumableStore(options);
  const { records } = options;
  const calls = new WeakMap<IncomingMessage, UploadCall>();
  const locker = new UploadLocker(options.locks, (id) => store.distrust(id));
  const route = `${options.basePath}/uploads`;
  const tus = new Server({
    path: route,
    datastore: store,
    maxSize: options.maxSize,
    locker,
    generateUrl: (_req, { id }) => `${options.baseUrl()}/uploads/${id}`,
    // The id the route validated (and checked the owner of): the library's own reading of the raw URL takes the
    // last segment of path and query alike, so `/uploads/U/` or `/uploads/V?x=/U` would name another upload.
    getFileIdFromRequest: (req) => calls.get(req)?.id,
    async onResponseError(req, res, error) {
      const call = calls.get(req);
      await call?.settleBody();
      return answerFailure(req, res, error, options.nodeId, call?.log);
    },
    async onUploadCreate(req, res, upload) {
      const owner = calls.get(req)?.subject;
      if (!owner) throw { status_code: 401, body: "An upload needs an authenticated caller.\n" };
      const algorithm = upload.metadata?.[ALGORITHM_METADATA];
      if (algorithm && !algorithmKey(algorithm)) {
        throw {
          status_code: 400,
          body: `${ALGORITHM_METADATA}: ${unsupportedAlgorithm(algorithm).message}\n`,
        };
      }
      if ((await records.countOwnedBy(owner)) >= options.maxOpen) {
        throw exceptionAnswer(
          res,
          "InsufficientResources",
          `You hold ${options.maxOpen} uploads, the most this node keeps for one subject: use, finish or end (DELETE) one first, or wait until unused ones expire.`,
          options.nodeId,
        );
      }
      return { res, metadata: { ...upload.metadata, [OWNER_METADATA]: owner } };
    },
  });

  const find = (id: string): Promise<UploadRecord | undefined> => records.get(id);

  const interval = options.cleanupIntervalMs ?? Math.min(options.expirySeconds * 100, 3_600_000);
  const removeExpired = () => store.deleteExpired();
  const timer = setInterval(() => void removeExpired().catch(() => undefined), interval);
  timer.unref();

  return {
    async handle(req, res, call) {
      calls.set(req, call);
      await tus.handle(req, res);
    },

    endStalled: (id, idleMs) => store.breakBody(id, new StalledBody(idleMs)),

    async requireOwner(id, subject) {
      const upload = await find(id);
      if (upload && upload.owner !== subject) {
        throw new NotAuthorized(`Upload ${id} belongs to another subject; only its creator may use it.`);
      }
    },

    async take(reference, subject, objects) {
      const id = uploadIdOf(reference);
      const upload = await find(id);
      if (!upload) {
        throw new InvalidRequest(
          `There is no upload ${id} on this node (never made, expired, or already used).`,
        );
      }
      if (upload.owner !== subject) {
        throw new NotAuthorized(`Upload ${id} belongs to another subject; only its creator may use it.`);
      }
      const release = await locker.tryTake(id);
      if (!release) throw new InvalidRequest(`Upload ${id} is being used by another request.`);
      try {
        // Under the hold: no request of any process writes the file while its digests are taken and it is staged.
        // A create that won the race for it may have used it up meanwhile.
        if (!(await find(id))) throw new InvalidRequest(`Upload ${id} was used by another request.`);
        const algorithm = metadataOf(upload)[ALGORITHM_METADATA] ?? undefined;
        const staged = await store.stageFinished(id, objects, algorithm);
        if (!staged) {
          const now = (await find(id)) ?? upload;
          throw new InvalidRequest(
            `Upload ${id} is not finished: it has ${now.received} of ${now.size ?? "an undeclared number of"} bytes.`,
          );
        }
        return usingUp(staged, () => store.forget(id), once(release));
      } catch (error) {
        await release();
        throw error;
      }
    },

    removeExpired,

    async close() {
      clearInterval(timer);
      await store.close();
      await options.locks.close();
    },
  };
}

/** The store of the uploads' bytes: an S3 bucket's, or a folder (the file store's, else one in the data folder). */
async function openResumableStore(options: UploadAreaOptions): Promise<ResumableStore> {
  const expiryMs = options.expirySeconds * 1000;
  const { place } = options;
  if (place?.kind === "s3") return new S3UploadStore(place, options.records, expiryMs);
  const folder = place?.folder ?? path.join(options.dataDir, "uploads");
  await mkdir(folder, { recursive: true });
  return new DigestingFileStore(folder, expiryMs, options.records);
}

/** The upload id in an `objectUpload` value: the id itself, or the upload's URL ({baseUrl}/uploads/{id}). */
function uploadIdOf(reference: string): string {
  const trimmed = reference.trim();
  const id = trimmed.slice(trimmed.lastIndexOf("/") + 1);
  if (!isUploadId(id)) {
    throw new InvalidRequest(
      `"${trimmed}" names no upload: give its URL or id, as the upload's creation returned.`,
    );
  }
  return id;
}

/**
 * Staged bytes whose commit also forgets the upload (used up), and whose discard frees it for another try; either
 * lets go of the upload's hold.
 */
function usingUp(
  staged: StagedObject,
  forget: () => Promise<void>,
  release: () => Promise<void>,
): StagedObject {
  return {
    get digests() {
      return staged.digests;
    },
    get key() {
      return staged.key;
    },
    async commit() {
      await staged.commit();
      await forget();
      await release();
    },
    read: () => staged.read(),
    addDigest: (algorithm) => staged.addDigest(algorithm),
    async discard() {
      await staged.discard();
      await release();
    },
  };
}

/** `work` run on the first call only. */
function once(work: () => Promise<void>): () => Promise<void> {
  let done: Promise<void> | undefined;
  return () => {
    done ??= work();
    return done;
  };
}
