/**
 * The s3 section's node-level figures: 1 GiB created (curl -F) and read back (curl to /dev/null) through a
 * serving node whose store is the bucket, and through a node on the filesystem store, on the same bytes.
 */
import { createHash } from "node:crypto";
import { createReadStream } from "node:fs";
import { writeFile } from "node:fs/promises";
import path from "node:path";
import { S3_CREDENTIALS, S3_ENDPOINT, type TestBucket } from "../../../test/helpers/peers/s3.ts";
import { curl } from "../../lib/clients.ts";
import { sysmetaXml } from "../../lib/multipart.ts";
import { type BenchNode, backend, startNode } from "../../lib/node.ts";

const GIB = 1 << 30;

export interface NodeRates {
  /** Seconds per create and per get, one each a run. */
  create: number[];
  get: number[];
}

/** `runs` creates and gets of `src` (1 GiB) through a node on `bucket` and through a node on the filesystem. */
export async function nodeRates(
  runs: number,
  src: string,
  dir: string,
  bucket: TestBucket,
): Promise<{ s3: NodeRates; fs: NodeRates }> {
  const sha1 = await fileSha1(src);
  const db = await backend(undefined);
  const onS3 = await startNode(path.join(dir, "node-s3"), db, {
    D1NODE_STORE: `s3://${bucket.name}/node`,
    D1NODE_STORE_ENDPOINT: S3_ENDPOINT,
    D1NODE_STORE_PATH_STYLE: "true",
    AWS_ACCESS_KEY_ID: S3_CREDENTIALS.accessKeyId,
    AWS_SECRET_ACCESS_KEY: S3_CREDENTIALS.secretAccessKey,
  });
  const onFs = await startNode(path.join(dir, "node-fs"), db);
  const rates = { s3: { create: [], get: [] } as NodeRates, fs: { create: [], get: [] } as NodeRates };
  try {
    for (let i = 0; i < runs; i++) {
      for (const [node, into] of [
        [onS3, rates.s3],
        [onFs, rates.fs],
      ] as [BenchNode, NodeRates][]) {
        const pid = `s3-node-${i}`;
        const sysmeta = path.join(dir, `${pid}.xml`);
        await writeFile(sysmeta, sysmetaXml({ pid, size: GIB, sha1, formatId: "application/octet-stream" }));
        const created = await curl(
          [
            ...["-o", "/dev/null", "-H", "Expect:", "-H", `Authorization: Bearer ${node.token}`],
            ...["-F", `pid=${pid}`, "-F", `sysmeta=@${sysmeta};type=text/xml`],
            ...["-F", `object=@${src};type=application/octet-stream`],
            `${node.baseUrl}/v2/object`,
          ],
          ["http_code", "time_total"],
        );
        if (created.http_code !== "200") throw new Error(`create answered ${created.http_code}`);
        into.create.push(Number(created.time_total));
        const got = await curl(
          [
            "-o",
            "/dev/null",
            "-H",
            `Authorization: Bearer ${node.token}`,
            `${node.baseUrl}/v2/object/${pid}`,
          ],
          ["http_code", "time_total", "size_download"],
        );
        if (Number(got.size_download) !== GIB) throw new Error(`get returned ${got.size_download} bytes`);
        into.get.push(Number(got.time_total));
        // The gateway keeps its objects in memory: one 1 GiB object at a time.
        await curl(
          [
            ...["-o", "/dev/null", "-X", "DELETE", "-H", `Authorization: Bearer ${node.token}`],
            `${node.baseUrl}/v2/object/${pid}`,
          ],
          ["http_code"],
        );
      }
    }
  } finally {
    await onS3.stop();
    await onFs.stop();
    await db.dispose();
  }
  return rates;
}

async function fileSha1(file: string): Promise<string> {
  const hash = createHash("sha1");
  for await (const chunk of createReadStream(file, { highWaterMark: 1 << 20 })) hash.update(chunk as Buffer);
  return hash.digest("hex");
}
