/**
 * `d1node store migrate` on a real node, SQLite and PostgreSQL, against a real S3 server (the RADOS Gateway):
 * - filesystem -> S3 while the node serves (a first pass), an object written after it, then the final pass with
 *   the node stopped: the config file names the bucket, every object is served from it, the audit is clean;
 *   then back to the folder, with objects created and deleted on S3 meanwhile;
 * - a migration killed half-way continues where its durable record says; a corrupted source file is reported,
 *   not copied, and nothing is switched until it is put right.
 */
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { createHash, randomBytes } from "node:crypto";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";
import { loadOrCreateSigningKey } from "../../../src/auth/keys.ts";
import { mintToken } from "../../../src/auth/tokens.ts";
import { configFromFile, resolveConfig } from "../../../src/config/config.ts";
import { type RunningNode, startNode } from "../../../src/node/start.ts";
import { type Caller, call, create, enc } from "../../helpers/clients/client.ts";
import { uniquePid } from "../../helpers/data/sysmeta.ts";
import { createTestPostgresDatabase, type TestPostgres } from "../../helpers/db/postgres.ts";
import { BIN, runCli } from "../../helpers/nodes/cli.ts";
import { ADMIN, testDialects } from "../../helpers/nodes/node.ts";
import {
  countUnder,
  createTestBucket,
  S3_ENDPOINT,
  s3NodeSettings,
  type TestBucket,
} from "../../helpers/peers/s3.ts";

const sha256 = (data: Buffer) => createHash("sha256").update(data).digest("hex");
const shardPath = (key: string) => `${key.slice(0, 2)}/${key.slice(2, 4)}/${key}`;

/** A node's data folder and config file, started and stopped as an operator would, between migrations. */
class NodeSetup {
  running: RunningNode | undefined;
  admin: Caller | undefined;
  readonly objects = new Map<string, Buffer>();

  constructor(
    readonly dataDir: string,
    readonly configFile: string,
  ) {}

  static async create(pg: TestPostgres | undefined): Promise<NodeSetup> {
    const dataDir = await mkdtemp(path.join(tmpdir(), "d1node-migrate-"));
    const configFile = path.join(dataDir, "node.json");
    const settings = {
      dataDir,
      nodeId: "urn:node:TESTMN",
      adminSubjects: [ADMIN],
      storeEndpoint: S3_ENDPOINT,
      storePathStyle: true,
      ...(pg ? { databaseUrl: pg.url } : {}),
    };
    await writeFile(configFile, `${JSON.stringify(settings, null, 2)}\n`);
    return new NodeSetup(dataDir, configFile);
  }

  async settings(): Promise<Record<string, unknown>> {
    return JSON.parse(await readFile(this.configFile, "utf8")) as Record<string, unknown>;
  }

  async start(): Promise<Caller> {
    const config = resolveConfig(configFromFile(this.configFile), { port: 0 });
    this.running = await startNode(config, { logLevel: false });
    const { privateKey } = loadOrCreateSigningKey(this.dataDir);
    this.admin = { baseUrl: this.running.baseUrl, token: await mintToken(privateKey, { subject: ADMIN }) };
    return this.admin;
  }

  async stop(): Promise<void> {
    await this.running?.close();
    this.running = undefined;
  }

  async add(count: number, size: (i: number) => number): Promise<void> {
    const admin = this.admin as Caller;
    for (let i = 0; i < count; i++) {
      const pid = uniquePid("migrate");
      const bytes = randomBytes(size(i));
      assert.equal((await create(admin, pid, bytes)).status, 200);
      this.objects.set(pid, bytes);
    }
  }

  /** Every object answers with its bytes. */
  async assertServed(): Promise<void> {
    const admin = this.admin as Caller;
    for (const [pid, bytes] of this.objects) {
      const got = await call(admin, "GET", `/object/${enc(pid)}`);
      assert.equal(got.status, 200, pid);
      assert.ok(Buffer.from(await got.arrayBuffer()).equals(bytes), `bytes of ${pid}`);
    }
  }

  migrate(to: string, ...more: string[]) {
    return runCli(["store", "migrate", "--config", this.configFile, "--to", to, ...more]);
  }

  async assertAuditClean(): Promise<void> {
    const run = await runCli(["audit", "--config", this.configFile]);
    assert.equal(run.code, 0, run.stdout + run.stderr);
    assert.match(run.stdout, new RegExp(`audited ${this.objects.size} objects, .*: 0 mismatched, 0 missing`));
  }

  async close(): Promise<void> {
    await this.stop();
    await rm(this.dataDir, { recursive: true, force: true });
  }
}

for (const dialect of testDialects()) {
  describe(`d1node store migrate (${dialect})`, { timeout: 900_000 }, () => {
    let bucket: TestBucket;
    let pg: TestPostgres | undefined;
    let node: NodeSetup;
    before(async () => {
      bucket = await createTestBucket();
      s3NodeSettings(bucket); // the gateway's credentials in the environment, as a deployed node has them
    });
    after(async () => {
      await node?.close();
      await pg?.drop();
      await bucket?.drop();
    });

    it("moves a serving node's bytes to S3 and back: served correctly, audit clean, nothing lost", async () => {
      pg = dialect === "postgres" ? await createTestPostgresDatabase() : undefined;
      node = await NodeSetup.create(pg);
      await node.start();
      await node.add(6, (i) => [0, 10, 70_000, 12 * 1024 * 1024 + 5, 300, 4096][i] as number);
      const s3 = `s3://${bucket.name}/node`;

      const serving = await node.migrate(s3);
      assert.equal(serving.code, 0, serving.stdout + serving.stderr);
      assert.match(serving.stdout, /6 copied .*; the node is running: stop it/);
      assert.equal((await node.settings()).store, undefined, "nothing switched while serving");
      await node.add(2, (i) => 1000 + i); // written after the first pass: the next one copies them
      await node.stop();

      const final = await node.migrate(s3);
      assert.equal(final.code, 0, final.stdout + final.stderr);
      assert.match(final.stderr, /continuing: 6 objects' bytes copied earlier/);
      assert.match(final.stdout, /2 copied .*, 6 copied earlier, 0 failed; every object's bytes are in s3:/);
      assert.match(final.stdout, /node\.json: "store" now is s3:/);
      assert.equal((await node.settings()).store, s3);
      assert.equal(await countUnder(bucket.client, bucket.name, "node/objects/"), 8);

      await node.start();
      assert.equal(node.running?.ctx.config.store, s3);
      await node.assertServed();
      await node.assertAuditClean();
      // Life on S3: one object more, one deleted; then back to the folder.
      await node.add(1, () => 5000);
      const [gone] = [...node.objects.keys()];
      assert.equal(
        (await call(node.admin as Caller, "DELETE", `/object/${enc(gone as string)}`)).status,
        200,
      );
      node.objects.delete(gone as string);
      await node.stop();

      const back = await node.migrate(path.join(node.dataDir, "store"));
      assert.equal(back.code, 0, back.stdout + back.stderr);
      assert.match(back.stdout, /1 copied .*, 7 already there/);
      assert.match(back.stdout, /node\.json: "store" now unset/);
      assert.equal((await node.settings()).store, undefined);
      await node.start();
      assert.equal(node.running?.ctx.config.store, undefined);
      await node.assertServed();
      const deleted = await call(node.admin as Caller, "GET", `/object/${enc(gone as string)}`);
      assert.equal(deleted.status, 404);
      await node.assertAuditClean();
      await node.close();
      await pg?.drop();
      pg = undefined;
    });

    it("continues a migration killed half-way; a corrupted file is reported, not copied, not switched", async () => {
      pg = dialect === "postgres" ? await createTestPostgresDatabase() : undefined;
      node = await NodeSetup.create(pg);
      await node.start();
      await node.add(150, () => 64 * 1024);
      await node.stop();
      const [badPid, badBytes] = [...node.objects][77] as [string, Buffer];
      const badKey = sha256(badBytes);
      const badFile = path.join(node.dataDir, "store", "objects", shardPath(badKey));
      const damaged = Buffer.from(badBytes);
      damaged[100] = (damaged[100] as number) ^ 0xff;
      await writeFile(badFile, damaged);
      const s3 = `s3://${bucket.name}/second`;

      // Killed once the durable record holds some keys.
      const child = spawn(
        process.execPath,
        [BIN, "store", "migrate", "--config", node.configFile, "--to", s3, "--concurrency", "1"],
        { stdio: "ignore" },
      );
      const exited = new Promise<NodeJS.Signals | null>((resolve) =>
        child.once("exit", (_code, signal) => resolve(signal)),
      );
      const log = path.join(node.dataDir, "store-migration.log");
      const recorded = async () =>
        (await readFile(log, "utf8").catch(() => "")).split("\n").filter((l) => /^[0-9a-f]{64}$/.test(l));
      while ((await recorded()).length < 5 && child.exitCode === null) await sleep(20);
      child.kill("SIGKILL");
      assert.equal(await exited, "SIGKILL", "the migration was still under way when killed");
      const before = (await recorded()).length;
      assert.ok(before < 150);

      const resumed = await node.migrate(s3);
      assert.equal(resumed.code, 1, resumed.stdout + resumed.stderr);
      assert.match(resumed.stderr, new RegExp(`continuing: ${before} objects' bytes copied earlier`));
      assert.match(resumed.stdout, new RegExp(`${before} copied earlier, 1 failed`));
      assert.match(
        resumed.stdout,
        new RegExp(`FAILED ${badKey}: the source's bytes hash to ${sha256(damaged)}`),
      );
      assert.match(resumed.stdout, new RegExp(`NOT COPIED ${badPid} \\(bytes ${badKey}\\)`));
      assert.match(resumed.stdout, /1 objects' bytes are not in s3:.*: not switched/);
      assert.equal(await countUnder(bucket.client, bucket.name, `second/objects/${shardPath(badKey)}`), 0);
      assert.equal(await countUnder(bucket.client, bucket.name, "second/objects/"), 149);
      assert.equal(await countUnder(bucket.client, bucket.name, "second/tmp/"), 0);
      assert.equal((await node.settings()).store, undefined);

      await writeFile(badFile, badBytes); // put right (as audit --repair would)
      const done = await node.migrate(s3);
      assert.equal(done.code, 0, done.stdout + done.stderr);
      assert.match(done.stdout, /1 copied .*, 149 copied earlier, 0 failed/);
      assert.equal((await node.settings()).store, s3);
      await node.start();
      await node.assertServed();
      await node.assertAuditClean();
    });

    it("says what is wrong, on one line, exit code 2", async () => {
      const run = await node.migrate(path.join(node.dataDir, "elsewhere"));
      assert.equal(run.code, 2);
      assert.match(
        run.stderr,
        /^d1node store: a node keeps its bytes on disk only in its data folder's store folder/,
      );
      const same = await node.migrate((await node.settings()).store as string);
      assert.equal(same.code, 2);
      assert.match(same.stderr, /already are in s3:.*: nothing to migrate\n$/);
    });
  });
}
