/**
 * s3: 1 GiB through the object stores, measured at the store (no HTTP), on Ceph's RADOS Gateway
 * (scripts/s3-test-server.sh; skipped with a line when Ceph is not installed).
 *   S3 store create (stage: multipart upload hashed in one pass, then commit: server-side copy) vs the AWS SDK's
 *   own upload of the same file (lib-storage, no hashing, no copy): the store's cost over the gateway's throughput;
 *   S3 store read vs the SDK's own GetObject; both also against the filesystem store on the same bytes;
 *   and the same through a serving node (HTTP create with curl -F, get with curl) on the bucket vs a node on the
 *   filesystem store, against the same run's SDK figures (s3-node.ts).
 */
import { execFileSync } from "node:child_process";
import { createReadStream } from "node:fs";
import path from "node:path";
import { DeleteObjectCommand, GetObjectCommand } from "@aws-sdk/client-s3";
import { Upload } from "@aws-sdk/lib-storage";
import { createFsStore } from "../../../src/store/fs-store.ts";
import { createS3Store } from "../../../src/store/s3/s3-store.ts";
import type { ObjectStore } from "../../../src/store/types.ts";
import { createTestBucket } from "../../../test/helpers/peers/s3.ts";
import { tempDir } from "../../lib/node.ts";
import { median } from "../../lib/processes.ts";
import { record } from "../../lib/report.ts";
import { generateFile } from "../../store-pipeline.ts";
import type { SectionOptions } from "../types.ts";
import { nodeRates } from "./s3-node.ts";

const MIB = 1 << 20;
const GIB = 1 << 30;

export async function s3(options: SectionOptions): Promise<void> {
  try {
    execFileSync("sh", ["-c", "command -v radosgw"], { stdio: "ignore" });
  } catch {
    process.stdout.write(
      "[s3] skipped: Ceph's RADOS Gateway is not installed (apt-get install radosgw ceph-mon ceph-osd)\n",
    );
    return;
  }
  const tmp = await tempDir("s3");
  const bucket = await createTestBucket();
  const s3Store = await createS3Store({ ...bucket.options("bench/"), partSize: 8 * MIB });
  const fsStore = await createFsStore(path.join(tmp.dir, "store"));
  try {
    const src = path.join(tmp.dir, "source.bin");
    await generateFile(src, GIB / MIB);
    const figures = {
      sdkUp: [] as number[],
      sdkDown: [] as number[],
      s3Up: [] as number[],
      s3Down: [] as number[],
    };
    const fsFigures = { up: [] as number[], down: [] as number[] };
    for (let i = 0; i < options.runs; i++) {
      figures.sdkUp.push(
        await timed(async () => {
          const upload = new Upload({
            client: bucket.client,
            params: { Bucket: bucket.name, Key: "raw", Body: createReadStream(src, { highWaterMark: MIB }) },
            partSize: 8 * MIB,
            queueSize: 4,
          });
          await upload.done();
        }),
      );
      figures.sdkDown.push(
        await timed(async () => {
          const got = await bucket.client.send(new GetObjectCommand({ Bucket: bucket.name, Key: "raw" }));
          await drain(got.Body as AsyncIterable<Buffer>);
        }),
      );
      await bucket.client.send(new DeleteObjectCommand({ Bucket: bucket.name, Key: "raw" }));
      for (const [store, up, down] of [
        [s3Store, figures.s3Up, figures.s3Down],
        [fsStore, fsFigures.up, fsFigures.down],
      ] as [ObjectStore, number[], number[]][]) {
        let key = "";
        up.push(
          await timed(async () => {
            const staged = await store.stage(createReadStream(src, { highWaterMark: MIB }));
            await staged.commit();
            key = staged.key;
          }),
        );
        down.push(await timed(() => drain(store.read(key))));
        await store.remove(key);
      }
    }
    const rate = (seconds: number[]) => GIB / MIB / median(seconds);
    const runs = (seconds: number[]) => seconds.map((s) => GIB / MIB / s);
    record({
      section: "s3",
      name: "S3 store create 1 GiB (hashed multipart upload + server-side copy)",
      value: rate(figures.s3Up),
      unit: "MiB/s",
      baseline: {
        name: "AWS SDK upload alone (lib-storage, 8 MiB x 4)",
        value: rate(figures.sdkUp),
        unit: "MiB/s",
      },
      ratio: rate(figures.s3Up) / rate(figures.sdkUp),
      runs: runs(figures.s3Up),
      notes: `filesystem store: ${rate(fsFigures.up).toFixed(0)} MiB/s (S3 store / filesystem ${(rate(figures.s3Up) / rate(fsFigures.up)).toFixed(2)})`,
    });
    record({
      section: "s3",
      name: "S3 store read 1 GiB",
      value: rate(figures.s3Down),
      unit: "MiB/s",
      baseline: { name: "AWS SDK GetObject alone", value: rate(figures.sdkDown), unit: "MiB/s" },
      ratio: rate(figures.s3Down) / rate(figures.sdkDown),
      runs: runs(figures.s3Down),
      notes: `filesystem store: ${rate(fsFigures.down).toFixed(0)} MiB/s (S3 store / filesystem ${(rate(figures.s3Down) / rate(fsFigures.down)).toFixed(2)})`,
    });
    const nodes = await nodeRates(options.runs, src, tmp.dir, bucket);
    for (const [what, s3Seconds, fsSeconds, sdk, sdkName] of [
      [
        "create 1 GiB through a node on S3 (curl -F)",
        nodes.s3.create,
        nodes.fs.create,
        figures.sdkUp,
        "AWS SDK upload alone",
      ],
      [
        "get 1 GiB through a node on S3 (curl)",
        nodes.s3.get,
        nodes.fs.get,
        figures.sdkDown,
        "AWS SDK GetObject alone",
      ],
    ] as [string, number[], number[], number[], string][]) {
      record({
        section: "s3",
        name: what,
        value: rate(s3Seconds),
        unit: "MiB/s",
        baseline: { name: sdkName, value: rate(sdk), unit: "MiB/s" },
        ratio: rate(s3Seconds) / rate(sdk),
        runs: runs(s3Seconds),
        notes: `a node on the filesystem store: ${rate(fsSeconds).toFixed(0)} MiB/s (on S3 / on the filesystem ${(rate(s3Seconds) / rate(fsSeconds)).toFixed(2)})`,
      });
    }
  } finally {
    await s3Store.close();
    await fsStore.close();
    await bucket.drop();
    await tmp.dispose();
  }
}

async function timed(work: () => Promise<void>): Promise<number> {
  const started = process.hrtime.bigint();
  await work();
  return Number(process.hrtime.bigint() - started) / 1e9;
}

async function drain(stream: AsyncIterable<unknown>): Promise<void> {
  for await (const _ of stream) {
    // discard
  }
}
