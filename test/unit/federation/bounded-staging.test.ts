/**
 * Bytes from another node are staged no further than their declared size: `audit --repair` asking a holder that
 * sends endless bytes for a 1,000-byte object stops at the byte past 1,000 (before it reaches the store), skips
 * that holder saying why, and keeps nothing.
 */
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { mkdtemp, readdir, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { pipeline, type Readable, Transform } from "node:stream";
import { after, before, describe, it } from "node:test";
import { resolveConfig } from "../../../src/config/config.ts";
import type { Database } from "../../../src/db/types.ts";
import { repairFromReplicas } from "../../../src/ops/repair.ts";
import { createFsStore } from "../../../src/store/index.ts";
import type { ObjectStore } from "../../../src/store/types.ts";
import { submittedSysmeta } from "../../helpers/data/sysmeta.ts";
import { type HostilePeer, startHostilePeer } from "../../helpers/peers/hostile-peer.ts";

const SIZE = 1000;
const bytes = Buffer.alloc(SIZE, "a");

describe("audit --repair stages no more than the declared size", () => {
  let server: HostilePeer;
  let dataDir: string;
  let store: ObjectStore;
  /** Bytes that reached the store's stager. */
  let staged = 0;
  before(async () => {
    dataDir = await mkdtemp(path.join(tmpdir(), "d1node-test-"));
    server = await startHostilePeer(submittedSysmeta("big", bytes));
    const real = await createFsStore(path.join(dataDir, "store"));
    store = {
      ...real,
      stage: (source: Readable, options) => {
        const tap = new Transform({
          transform(chunk: Buffer, _encoding, done) {
            staged += chunk.length;
            done(null, chunk);
          },
        });
        pipeline(source, tap, () => {});
        return real.stage(tap, options);
      },
    };
  });
  after(async () => {
    await server.close();
    await store.close();
    await rm(dataDir, { recursive: true, force: true });
  });

  it("a holder sending 256 MiB for a 1,000-byte object is stopped at the byte past 1,000 and skipped", async () => {
    const config = resolveConfig({ dataDir, cnBaseUrl: server.baseUrl, nodeId: "urn:node:HERE" });
    const skipped: string[] = [];
    const repair = repairFromReplicas({
      config,
      db: {} as Database,
      store,
      onSkip: (_pid, nodeId, why) => skipped.push(`${nodeId}: ${why}`),
    });
    const sha256 = createHash("sha256").update(bytes).digest("hex");
    const md5 = createHash("md5").update(bytes).digest("hex");
    const sha1 = createHash("sha1").update(bytes).digest("hex");
    const repaired = await repair(
      {
        pid: "big",
        contentKey: sha256,
        size: SIZE,
        md5,
        sha1,
        sha256,
        checksum: { algorithm: "SHA-1", value: sha1 },
        isReplica: false,
      },
      { pid: "big", problem: "mismatch" } as never,
    );
    assert.equal(repaired, false);
    assert.equal(skipped.length, 2, skipped.join("\n")); // getReplica, then get
    for (const why of skipped) assert.match(why, /urn:node:EVIL: .*more than the 1000 bytes/);
    assert.ok(staged <= SIZE * 2, `${staged} bytes reached the store for two tries of a ${SIZE}-byte object`);
    // Nothing is left in the store's temporary folder or under its objects.
    const left = await readdir(path.join(dataDir, "store"), { recursive: true, withFileTypes: true });
    assert.deepEqual(
      left.filter((e) => e.isFile()).map((e) => e.name),
      [],
    );
  });
});
