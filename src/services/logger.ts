/**
 * The node's logger: one pino logger per node, made before its backends open, so that work done before the HTTP
 * app exists (the start-up index catch-up) and work done in the background (index failures of a write, a task)
 * log where the app's requests do. Nodes sharing a process (`--also`, the local federation) each have their own.
 */
import { type DestinationStream, type Logger, pino } from "pino";
import type { NodeLog } from "../types/node-log.ts";

export type { NodeLog };

/** A pino logger at `level`, writing JSON lines to `destination`: a stream or a file descriptor (1: stdout). */
export function createNodeLogger(level: string, destination: DestinationStream | number = 1): Logger {
  return pino({ level }, typeof destination === "number" ? pino.destination(destination) : destination);
}

/** For contexts that log nowhere (a node started with logging off). */
export const silentLog: NodeLog = { error() {}, warn() {}, info() {} };
