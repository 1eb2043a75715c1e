/**
 * The common operator mistakes, each as one readable line (the command exits non-zero, never with a stack
 * trace): a port in use, a database missing, unreachable or locked by a running node, a file that cannot be
 * read (certificates, keys, configuration), a data folder that cannot be written, a full disk. Anything else is
 * reported by its message, on one line. D1NODE_DEBUG=1 prints the stack as well.
 */

import { accessSync, constants } from "node:fs";

interface SystemError extends Error {
  code?: string;
  errno?: number;
  syscall?: string;
  path?: string;
  address?: string;
  port?: number;
}

const WHY: Record<string, string> = {
  ENOENT: "no such file or folder",
  EACCES: "permission denied",
  EPERM: "operation not permitted",
  EROFS: "read-only filesystem",
  ENOTDIR: "a part of the path is not a folder",
  EISDIR: "is a folder",
};

export function describeFailure(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const e = error as SystemError;
  const code = e.code ?? "";
  // The project's own errors say all there is to say.
  if (code.startsWith("D1NODE_")) return firstLine(e.message);
  if (code === "EADDRINUSE") {
    return `port ${e.port ?? "?"} on ${e.address ?? "?"} is already in use (another node or program listens there): choose another with --port`;
  }
  if (code === "EADDRNOTAVAIL")
    return `cannot listen on ${e.address ?? "that address"}: not an address of this machine (--host)`;
  if (code === "SQLITE_BUSY" || /database is locked/.test(e.message)) {
    return "the embedded database is locked by another process (a node running on this data folder?): stop it first";
  }
  if (code === "ENOSPC" || code === "SQLITE_FULL" || code === "OUT_OF_SPACE") {
    return `the disk is full${e.path ? ` (writing ${e.path})` : ""}: free some space and start again`;
  }
  if (code === "3D000") {
    const name = /database "([^"]+)"/.exec(e.message)?.[1] ?? "?";
    return `PostgreSQL database "${name}" does not exist: create it (createdb ${name}, or CREATE DATABASE "${name}";)`;
  }
  if (code === "ECONNREFUSED" || code === "ENOTFOUND" || code === "EHOSTUNREACH" || code === "ETIMEDOUT") {
    const where = e.address ? `${e.address}${e.port ? `:${e.port}` : ""}` : "the database server";
    return `cannot reach ${where} (${code}): is the database server running, and the URL right?`;
  }
  if (code === "28P01" || code === "28000") return `PostgreSQL refused the login: ${e.message}`;
  if (code === "SQLITE_CANTOPEN" || code === "SQLITE_READONLY") {
    return `cannot write the embedded database (${code}): the data folder must be writable by this user`;
  }
  if (code === "EEXIST" && e.syscall === "mkdir" && e.path) {
    return `cannot make the folder ${e.path}: a file of that name is in the way (a data folder must be a folder)`;
  }
  if (e.path && code in WHY) {
    const writing = ["mkdir", "open", "rename", "unlink", "rmdir", "copyfile", "link", "write"].includes(
      e.syscall ?? "",
    );
    const verb =
      code === "ENOENT"
        ? "cannot read"
        : e.syscall === "open"
          ? openVerb(e.path)
          : writing
            ? "cannot write"
            : "cannot use";
    return `${verb} ${e.path}: ${WHY[code]}`;
  }
  if (code.startsWith("ERR_OSSL") || /PEM|asn1|certificate/i.test(e.message)) {
    return `a certificate or key file is not usable (tlsCert, tlsKey, clientCa): ${firstLine(e.message)}`;
  }
  return firstLine(e.message);
}

/**
 * What a refused `open` was, told from the file: one that exists and this user may not read was being read (a
 * certificate, a key, a config file); one that is absent was being created; else it cannot be told.
 */
function openVerb(file: string): string {
  const can = (mode: number) => {
    try {
      accessSync(file, mode);
      return "yes";
    } catch (error) {
      return (error as NodeJS.ErrnoException).code === "ENOENT" ? "absent" : "no";
    }
  };
  const exists = can(constants.F_OK);
  if (exists === "absent") return "cannot write";
  if (exists === "no") return "cannot open";
  return can(constants.R_OK) === "yes" ? "cannot write" : "cannot read";
}

function firstLine(text: string): string {
  return text.split("\n")[0]?.trim() || "failed";
}
