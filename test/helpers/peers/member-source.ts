/**
 * An in-process Member Node for the harvester (SourceNode): one object's system metadata, getChecksum answered
 * by `checksum(algorithm)` (default: the system metadata's), a few bytes, and the synchronization failures the CN
 * reports to it.
 */
import { Readable } from "node:stream";
import type { SourceNode } from "../../../src/federation/harvest/object.ts";
import type { Checksum, SystemMetadata } from "../../../src/types/sysmeta.ts";

export function memberSource(
  sysmeta: SystemMetadata,
  checksum: (algorithm: string) => Checksum = () => sysmeta.checksum,
): SourceNode & { failures: string[] } {
  const failures: string[] = [];
  return {
    failures,
    getSystemMetadata: async () => sysmeta,
    getChecksum: async (_pid, algorithm) => checksum(algorithm),
    get: async () => Readable.from([Buffer.from("data stays on the member node\n")]),
    synchronizationFailed: async (_pid, description) => {
      failures.push(description);
    },
  };
}
