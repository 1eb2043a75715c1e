/**
 * The young generation of a rebuild's threads. The command starts node with a 4 MiB semi-space
 * (`--max-semi-space-size=4`, bin/d1node.js: uploads and small gets); V8 reads that flag for every isolate,
 * workers included, and a Worker's `resourceLimits` do not override it. Extraction allocates a parse tree and
 * its strings a document, which a small young generation promotes and collects again (docs/decisions.md, "Full
 * rebuild: the threads' young generation"). The flag is raised while the threads start (each isolate reads it as it is made) and set back
 * once they are all up, so the node's own isolate and later threads keep theirs.
 */
import v8 from "node:v8";
import type { Worker } from "node:worker_threads";

/** The semi-space of a rebuild's threads, in MiB (their young generation is about twice that at most). */
export const REBUILD_SEMI_SPACE_MB = 64;

let starting = 0;

/** Start a worker (`start`) whose young generation may grow to REBUILD_SEMI_SPACE_MB. */
export function withLargeYoungGeneration(start: () => Worker): Worker {
  if (starting++ === 0) v8.setFlagsFromString(`--max-semi-space-size=${REBUILD_SEMI_SPACE_MB}`);
  let worker: Worker;
  try {
    worker = start();
  } catch (error) {
    started();
    throw error;
  }
  let done = false;
  const up = () => {
    if (done) return;
    done = true;
    started();
  };
  worker.once("online", up);
  worker.once("error", up);
  worker.once("exit", up);
  return worker;
}

function started(): void {
  if (--starting === 0) v8.setFlagsFromString(`--max-semi-space-size=${processSemiSpace()}`);
}

/** The process's own setting (0: V8's default), as node was started. */
function processSemiSpace(): number {
  const options = [...process.execArgv, ...(process.env.NODE_OPTIONS ?? "").split(/\s+/)];
  let mb = 0;
  for (const option of options) {
    const match = /^--max[-_]semi[-_]space[-_]size=(\d+)$/.exec(option);
    if (match) mb = Number(match[1]);
  }
  return mb;
}
