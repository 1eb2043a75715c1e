/** The gauges of resumable uploads in progress (every process's: their records are in the database). */
import { Gauge, type Registry } from "prom-client";
import type { SnapshotCache } from "./snapshot.ts";

export function registerUploadGauges(registers: Registry[], snapshot: SnapshotCache): void {
  new Gauge({
    name: "d1node_uploads_open",
    help: "Resumable uploads not yet used up by a create or update, nor ended or expired.",
    registers,
    async collect() {
      this.set((await snapshot.get()).uploads.uploads);
    },
  });
  new Gauge({
    name: "d1node_uploads_received_bytes",
    help: "Bytes the unfinished resumable uploads received so far.",
    registers,
    async collect() {
      this.set((await snapshot.get()).uploads.bytes);
    },
  });
}
