/**
 * audit: `d1node audit` over a store of 10,000 distinct objects (64 KiB each by default, BENCH_AUDIT_OBJECTS and
 * BENCH_AUDIT_SIZE change that), one byte flipped on disk: the audit must name that object and exit 1. Its read
 * rate is reported against the baseline, in the same run, of `cat` reading the same files to /dev/null.
 */
import { execFileSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { Readable } from "node:stream";
import type { StoredObject } from "../../../src/db/types.ts";
import { openNodeDatabase } from "../../../src/node/open-database.ts";
import { createFsStore } from "../../../src/store/index.ts";
import { BIN, tempDir } from "../../lib/node.ts";
import { record } from "../../lib/report.ts";
import type { SectionOptions } from "../types.ts";

const OBJECTS = Number(process.env.BENCH_AUDIT_OBJECTS ?? 10_000);
const SIZE = Number(process.env.BENCH_AUDIT_SIZE ?? 64 * 1024);

export async function audit(_options: SectionOptions): Promise<void> {
  const tmp = await tempDir("audit");
  const dataDir = path.join(tmp.dir, "data");
  try {
    const files = await buildStore(dataDir);
    const bytes = OBJECTS * SIZE;
    const catSeconds = timed(() => {
      for (let i = 0; i < files.length; i += 500) {
        execFileSync("cat", files.slice(i, i + 500), { stdio: ["ignore", "ignore", "inherit"] });
      }
    });
    const flipped = files[Math.floor(files.length / 2)] as string;
    const damaged = Buffer.from(await readFile(flipped));
    damaged[100] = (damaged[100] as number) ^ 0x01;
    await writeFile(flipped, damaged);
    let output = "";
    let code = 0;
    const auditSeconds = timed(() => {
      try {
        output = execFileSync(process.execPath, [BIN, "audit", "--data-dir", dataDir], { encoding: "utf8" });
      } catch (error) {
        const failed = error as { status: number; stdout: string };
        code = failed.status;
        output = failed.stdout;
      }
    });
    const found = code === 1 && /1 mismatched, 0 missing/.test(output);
    const mibps = (seconds: number) => bytes / (1024 * 1024) / seconds;
    record({
      section: "audit",
      name: `d1node audit, ${OBJECTS} objects of ${SIZE / 1024} KiB (SQLite), one byte flipped`,
      value: mibps(auditSeconds),
      unit: "MiB/s",
      baseline: { name: "cat of the same files", value: mibps(catSeconds), unit: "MiB/s" },
      ratio: catSeconds / auditSeconds,
      target: "the flipped byte found (exit 1, one mismatch)",
      pass: found,
      notes: `audit ${auditSeconds.toFixed(1)} s (process start included), cat ${catSeconds.toFixed(1)} s`,
    });
  } finally {
    await tmp.dispose();
  }
}

/** Distinct random objects, staged into the store and recorded in the database as an upload would. */
async function buildStore(dataDir: string): Promise<string[]> {
  const db = await openNodeDatabase({ sqlitePath: path.join(dataDir, "d1node.sqlite") });
  const store = await createFsStore(path.join(dataDir, "store"));
  const files: string[] = [];
  try {
    let batch: StoredObject[] = [];
    for (let i = 0; i < OBJECTS; i++) {
      const staged = await store.stage(Readable.from([randomBytes(SIZE)]));
      await staged.commit();
      const d = staged.digests;
      files.push(
        path.join(dataDir, "store", "objects", d.sha256.slice(0, 2), d.sha256.slice(2, 4), d.sha256),
      );
      const at = new Date();
      batch.push({
        contentKey: d.sha256,
        isReplica: false,
        digests: d,
        sysmeta: {
          serialVersion: 1,
          identifier: `audit-${i}`,
          formatId: "application/octet-stream",
          size: d.size,
          checksum: { algorithm: "MD5", value: d.md5 },
          submitter: "CN=bench",
          rightsHolder: "CN=bench",
          accessPolicy: [{ subjects: ["public"], permissions: ["read"] }],
          archived: false,
          dateUploaded: at,
          dateSysMetadataModified: at,
          originMemberNode: "urn:node:d1node",
          authoritativeMemberNode: "urn:node:d1node",
          replicas: [],
        },
      });
      if (batch.length === 1000) {
        await db.objects.insertMany(batch);
        batch = [];
      }
    }
    if (batch.length > 0) await db.objects.insertMany(batch);
  } finally {
    await store.close();
    await db.close();
  }
  return files;
}

function timed(work: () => void): number {
  const started = process.hrtime.bigint();
  work();
  return Number(process.hrtime.bigint() - started) / 1e9;
}
