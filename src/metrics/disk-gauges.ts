/** The free and total bytes of the filesystem the node writes to (src/ops/disk-space.ts), read at each scrape. */
import { Gauge, type Registry } from "prom-client";
import type { Config } from "../config/config.ts";
import { diskSpace } from "../ops/disk-space.ts";

export function registerDiskGauges(registry: Registry, config: Pick<Config, "dataDir" | "store">): void {
  const registers = [registry];
  new Gauge({
    name: "d1node_disk_free_bytes",
    help: "Bytes free for the node on the filesystem of its store folder (else of its data folder), as df shows them.",
    registers,
    async collect() {
      const space = await diskSpace(config);
      if (space) this.set(space.freeBytes);
    },
  });
  new Gauge({
    name: "d1node_disk_size_bytes",
    help: "Size in bytes of the filesystem of the node's store folder (else of its data folder).",
    registers,
    async collect() {
      const space = await diskSpace(config);
      if (space) this.set(space.totalBytes);
    },
  });
}
