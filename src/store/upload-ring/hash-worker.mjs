// Hasher thread: updates the hashes of each upload (job) from slots of the shared ring.
// Plain JavaScript so that it starts without a TypeScript loader.
// Messages in:  [BEGIN, job, algorithms] | [UPDATE, job, slot, length] | [END, job] | [DROP, job]
// Messages out: [ACK, slot] after each UPDATE | [DIGEST, job, { algorithm: hex }] after END.
import { createHash } from "node:crypto";
import { parentPort, workerData } from "node:worker_threads";

const BEGIN = 0;
const UPDATE = 1;
const END = 2;
const DROP = 3;
const ACK = 0;
const DIGEST = 1;

/** @type {{ buffer: SharedArrayBuffer, slotSize: number, base: number }} */
const { buffer, slotSize, base } = workerData;
/** @type {Map<number, Array<[string, import("node:crypto").Hash]>>} */
const jobs = new Map();
const port = parentPort;
if (!port) throw new Error("hash-worker.mjs must run in a worker thread");

port.on("message", (/** @type {[number, number, ...unknown[]]} */ message) => {
  const [op, job] = message;
  if (op === BEGIN) {
    const algorithms = /** @type {string[]} */ (message[2]);
    jobs.set(
      job,
      algorithms.map((a) => [a, createHash(a)]),
    );
  } else if (op === UPDATE) {
    const slot = /** @type {number} */ (message[2]);
    const length = /** @type {number} */ (message[3]);
    const hashes = jobs.get(job);
    if (hashes) {
      const view = new Uint8Array(buffer, base + slot * slotSize, length);
      for (const [, hash] of hashes) hash.update(view);
    }
    port.postMessage([ACK, slot]);
  } else if (op === END) {
    /** @type {Record<string, string>} */
    const values = {};
    for (const [algorithm, hash] of jobs.get(job) ?? []) values[algorithm] = hash.digest("hex");
    jobs.delete(job);
    port.postMessage([DIGEST, job, values]);
  } else if (op === DROP) {
    jobs.delete(job);
  }
});
