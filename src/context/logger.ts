/**
 * The node's logger: one pino logger per node, made before its backends open, so that work done before the HTTP
 * app exists (the start-up index catch-up) and work done in the background (index failures of a write, a task)
 * log where the app's requests do. Nodes sharing a process (`--also`, the local federation) each have their own.
 */
import { type DestinationStream, type Logger, pino } from "pino";
import { withoutReviewSecret } from "../auth/review-tokens.ts";
import type { NodeLog } from "../types/node-log.ts";
import { textLines } from "./text-log.ts";

export type { NodeLog };

/**
 * A pino logger at `level`, writing to `destination`: a stream (tests read its JSON lines) or a file descriptor
 * (1: stdout), in `format`: "json" (pino's lines as they are) or "text" (each line rewritten as readable text,
 * src/context/text-log.ts). No line holds a reviewer link's secret, whoever logged it (the access log, Fastify's
 * own request lines, any path, routed or not): each is cut out here as the line is written, the one place logs are
 * guarded, since every line of the node and of its HTTP app is written through this logger.
 */
export function createNodeLogger(
  level: string,
  destination: DestinationStream | number = 1,
  format: "text" | "json" = "json",
): Logger {
  const out = typeof destination === "number" ? pino.destination(destination) : destination;
  return pino(
    { level, hooks: { streamWrite: withoutReviewSecret } },
    format === "text" ? textLines(out) : out,
  );
}

/** For contexts that log nowhere (a node started with logging off). */
export const silentLog: NodeLog = { error() {}, warn() {}, info() {} };
