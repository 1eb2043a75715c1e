/**
 * What `d1node upload` remembers between runs: each resumable upload it started and has not yet seen created, in
 * `$XDG_STATE_HOME/d1node/uploads.json` (default `~/.local/state/d1node/uploads.json`, readable by the user alone),
 * kept by tus-js-client's FileUrlStorage. Keyed by the file (its absolute path, size and modification time) and the
 * node's upload endpoint, so a rerun of the same command resumes where the last one stopped, or goes straight to
 * the create when every byte was sent; an upload is forgotten once its object is created (or pruned).
 */
import { closeSync, mkdirSync, openSync, statSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import type * as tus from "tus-js-client";

/** One remembered upload: the file it sends, where to, and its URL on the node. */
export interface RememberedUpload {
  file: string;
  size: number;
  endpoint: string;
  uploadUrl: string;
  createdAt: string;
  /** Its key in the storage (for removeUpload). */
  key: string;
}

export function uploadMemoryFile(): string {
  const state = process.env.XDG_STATE_HOME || path.join(os.homedir(), ".local", "state");
  return path.join(state, "d1node", "uploads.json");
}

/** The storage, its folder and file made first, for the user alone (upload URLs are the user's business). */
export async function openUploadMemory(): Promise<tus.UrlStorage> {
  const file = uploadMemoryFile();
  mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
  // "a": made if missing (empty, which FileUrlStorage reads as no uploads), left as it is otherwise.
  closeSync(openSync(file, "a", 0o600));
  // Exported by tus-js-client's Node build, missing from its type declarations.
  const { FileUrlStorage } = (await import("tus-js-client")) as unknown as {
    FileUrlStorage: new (file: string) => tus.UrlStorage;
  };
  return new FileUrlStorage(file);
}

/**
 * The key of `file` sent to `endpoint`: a JSON array, so that no key is the beginning of another (the storage
 * finds uploads by key prefix).
 */
export function uploadFingerprint(file: string, endpoint: string): string {
  const absolute = path.resolve(file);
  const { size, mtimeMs } = statSync(absolute);
  return JSON.stringify([endpoint, size, Math.trunc(mtimeMs), absolute]);
}

/** Every remembered upload (of `endpoint` alone when given). */
export async function rememberedUploads(
  storage: tus.UrlStorage,
  endpoint?: string,
): Promise<RememberedUpload[]> {
  const found: RememberedUpload[] = [];
  for (const record of await storage.findAllUploads()) {
    const key = record.urlStorageKey;
    const fingerprint = key.slice("tus::".length, key.lastIndexOf("::"));
    let parsed: unknown;
    try {
      parsed = JSON.parse(fingerprint);
    } catch {
      continue;
    }
    if (!Array.isArray(parsed) || parsed.length !== 4 || !record.uploadUrl) continue;
    const [target, size, , file] = parsed as [string, number, number, string];
    if (endpoint !== undefined && target !== endpoint) continue;
    found.push({
      file,
      size,
      endpoint: target,
      uploadUrl: record.uploadUrl,
      createdAt: record.creationTime,
      key,
    });
  }
  return found.sort((a, b) => a.createdAt.localeCompare(b.createdAt));
}

/** Forgets every upload remembered for `fingerprint`. */
export async function forgetUploads(storage: tus.UrlStorage, fingerprint: string): Promise<void> {
  for (const record of await storage.findUploadsByFingerprint(fingerprint)) {
    await storage.removeUpload(record.urlStorageKey);
  }
}
