/**
 * A node on the embedded (SQLite) database holds its database alone, so operator commands that need it while
 * the node runs (`d1node backup`, `d1node audit`) ask the node itself, over a Unix socket in its data folder
 * (`control.sock`, mode 0600: only the data folder's owner, who could copy the files anyway). HTTP on the socket,
 * each answer a stream of JSON lines: progress, findings, and last `{"done": ...}` or `{"error": "..."}`.
 */
import { chmod, rm } from "node:fs/promises";
import http from "node:http";
import path from "node:path";
import type { NodeContext } from "../context/node-context.ts";
import { auditStoredObjects } from "./audit.ts";
import { BackupRefused, backupNode } from "./backup.ts";
import { repairFromReplicas } from "./repair.ts";
import { repairFromBackup } from "./repair-from-backup.ts";

export const CONTROL_SOCKET = "control.sock";
/** Unix socket paths are limited (108 bytes on Linux). */
const MAX_SOCKET_PATH = 100;

export interface ControlSocket {
  close(): Promise<void>;
}

export function controlSocketPath(dataDir: string): string {
  return path.join(dataDir, CONTROL_SOCKET);
}

/** Listens on the data folder's control socket; undefined (with a warning) when its path is too long. */
export async function startControlSocket(
  ctx: NodeContext,
  warn: (message: string) => void,
): Promise<ControlSocket | undefined> {
  const file = controlSocketPath(ctx.config.dataDir);
  if (file.length > MAX_SOCKET_PATH) {
    warn(`control socket not started: its path ${file} is too long for a Unix socket`);
    return undefined;
  }
  let busy = false;
  const server = http.createServer((request, response) => {
    response.writeHead(200, { "content-type": "application/x-ndjson" });
    const send = (line: object) => response.write(`${JSON.stringify(line)}\n`);
    if (busy) {
      send({ error: "the node is already running a backup or an audit" });
      response.end();
      return;
    }
    busy = true;
    const url = new URL(request.url ?? "/", "http://control");
    run(ctx, url, send)
      .then((done) => send({ done }))
      .catch((error: unknown) =>
        send({ error: (error as Error).message, refused: error instanceof BackupRefused }),
      )
      .finally(() => {
        busy = false;
        response.end();
      });
  });
  // The database's exclusive lock says no other node runs on this folder: a socket file left is stale.
  await rm(file, { force: true });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(file, () => {
      server.off("error", reject);
      resolve();
    });
  });
  await chmod(file, 0o600);
  return {
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await rm(file, { force: true });
    },
  };
}

async function run(ctx: NodeContext, url: URL, send: (line: object) => void): Promise<unknown> {
  let last = 0;
  const every = (line: object) => {
    if (Date.now() - last < 500) return;
    last = Date.now();
    send(line);
  };
  if (url.pathname === "/backup") {
    const dir = url.searchParams.get("dir");
    if (!dir || !path.isAbsolute(dir)) throw new BackupRefused("the backup folder must be an absolute path");
    return backupNode({ ...ctx, dataDir: ctx.config.dataDir }, dir, (progress) => every({ progress }));
  }
  if (url.pathname === "/audit") {
    const rate = Number(url.searchParams.get("rate") ?? 0);
    const repair = url.searchParams.get("repair") === "1";
    const fromBackup = url.searchParams.get("fromBackup") ?? undefined;
    if (fromBackup !== undefined && !path.isAbsolute(fromBackup)) {
      throw new BackupRefused("the backup folder must be an absolute path");
    }
    if (repair && !fromBackup && !ctx.config.cnBaseUrl) {
      throw new Error(
        "--repair needs the node's Coordinating Node (cnBaseUrl) to find the object's other holders, or --from-backup DIR",
      );
    }
    const sources = {
      config: ctx.config,
      db: ctx.db,
      store: ctx.store,
      onSkip: (pid: string, nodeId: string, why: string) => send({ skipped: { pid, nodeId, why } }),
    };
    return auditStoredObjects(ctx, {
      trigger: "command",
      bytesPerSecond: rate > 0 ? rate : undefined,
      repair: fromBackup
        ? await repairFromBackup(fromBackup, sources)
        : repair
          ? repairFromReplicas(sources)
          : undefined,
      onProgress: (progress) => every({ progress }),
      onFinding: (finding) => send({ finding }),
    });
  }
  throw new Error(`unknown control request ${url.pathname}`);
}
