/**
 * Resumable uploads across machines, as an operator runs them: two `d1node serve --no-worker` processes, each
 * with its own data folder, on one PostgreSQL database and one store (an S3 bucket on a real RADOS Gateway, or a
 * store folder both mount), behind HAProxy on deploy/haproxy.cfg, round robin, no sticky sessions. An upload
 * begun on one process is seen and continued on the other (HEAD, PATCH, status page, metrics) and created from on
 * either, with the checksum it was declared with; `d1node upload` in several requests through the balancer
 * lands its PATCHes on both; after one serving process and the command are killed mid-upload, a rerun resumes it.
 */
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { cp, mkdir, mkdtemp, readFile, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import parsePrometheusTextFormat from "parse-prometheus-text-format";
import pg from "pg";
import { loadOrCreateSigningKey } from "../../../src/auth/keys.ts";
import { mintToken } from "../../../src/auth/tokens.ts";
import { type Caller, call, enc, form } from "../../helpers/clients/client.ts";
import { createUpload, headUpload, patchUpload } from "../../helpers/clients/tus.ts";
import { sysmetaXml, uniquePid } from "../../helpers/data/sysmeta.ts";
import { createTestPostgresDatabase, type TestPostgres } from "../../helpers/db/postgres.ts";
import { BIN, runCli } from "../../helpers/nodes/cli.ts";
import { ADMIN, testDialects } from "../../helpers/nodes/node.ts";
import { type Deployment, startDeployment } from "../../helpers/nodes/scale-out.ts";
import { createTestBucket, s3NodeSettings, type TestBucket } from "../../helpers/peers/s3.ts";
import { eventually } from "../../helpers/time/eventually.ts";

const MIB = 1 << 20;

for (const store of ["s3", "folder"] as const) {
  const where = store === "s3" ? "one S3 bucket" : "one shared store folder";
  describe(`uploads through HAProxy to two processes with their own data folders, one PostgreSQL, ${where}`, {
    skip: !testDialects().includes("postgres"),
  }, () => {
    let dir: string;
    let database: TestPostgres;
    let bucket: TestBucket | undefined;
    let deployment: Deployment;
    let token: string;
    let tokenFile: string;
    /** Each serving process directly. */
    let direct: Caller[];

    before(async () => {
      dir = await mkdtemp(path.join(tmpdir(), "d1node-scale-out-uploads-"));
      database = await createTestPostgresDatabase();
      const dataDirs = [path.join(dir, "api1"), path.join(dir, "api2")];
      for (const dataDir of dataDirs) await mkdir(dataDir);
      // One token-signing key, copied into the other data folder (docs/deployment.md).
      token = await mintToken(loadOrCreateSigningKey(dataDirs[0] as string).privateKey, { subject: ADMIN });
      await cp(path.join(dataDirs[0] as string, "keys"), path.join(dataDirs[1] as string, "keys"), {
        recursive: true,
      });
      let storeSettings = {};
      if (store === "s3") {
        bucket = await createTestBucket();
        storeSettings = { ...s3NodeSettings(bucket), storePartSize: 5 * MIB };
      } else {
        // The store folder both processes mount (as over NFS), at `store` of each data folder.
        const shared = path.join(dir, "shared-store");
        await mkdir(shared);
        for (const dataDir of dataDirs) await symlink(shared, path.join(dataDir, "store"));
      }
      deployment = await startDeployment(
        dir,
        {
          nodeId: "urn:node:SCALEOUT",
          dataDir: dataDirs[0] as string,
          databaseUrl: database.url,
          ...storeSettings,
          adminSubjects: [ADMIN],
          logLevel: "warn",
        },
        { apis: 2, workers: 0, dataDirs },
      );
      direct = deployment.apiUrls.map((baseUrl) => ({ baseUrl, token }));
      tokenFile = path.join(dir, "token.jwt");
      await writeFile(tokenFile, token);
    });
    after(async () => {
      await deployment?.stop();
      await bucket?.drop();
      await database?.drop();
      if (dir) await rm(dir, { recursive: true, force: true });
    });

    /** Upload `location` (the balancer's URL) on serving process `i` directly. */
    const onProcess = (location: string, i: number) =>
      location.replace(deployment.baseUrl, deployment.apiUrls[i] as string);
    const bytesOf = async (c: Caller, pid: string) => {
      const response = await call(c, "GET", `/object/${enc(pid)}`);
      assert.equal(response.status, 200, `get ${pid} from ${c.baseUrl}`);
      return Buffer.from(await response.arrayBuffer());
    };
    /** GET {base}{path} of one process, outside the API versions (metrics, status page). */
    const operatorPage = (c: Caller, page: string) =>
      fetch(`${c.baseUrl}${page}`, { headers: { authorization: `Bearer ${token}` } });
    const metrics = async (c: Caller) => {
      const response = await operatorPage(c, "/metrics");
      assert.equal(response.status, 200);
      return parsePrometheusTextFormat(await response.text());
    };
    const sample = (families: Awaited<ReturnType<typeof metrics>>, name: string) =>
      families.find((family) => family.name === name)?.metrics ?? [];
    /** The command, remembering its uploads in the test's folder. */
    const upload = (file: string, sysmeta: string, extra: string[] = []) => [
      "upload",
      file,
      "--to",
      deployment.baseUrl,
      "--sysmeta",
      sysmeta,
      "--token-file",
      tokenFile,
      ...extra,
    ];
    const cliEnv = () => ({ XDG_STATE_HOME: path.join(dir, "state") });
    const prepare = async (size: number) => {
      const bytes = randomBytes(size);
      const pid = uniquePid("scale-upload");
      const file = path.join(dir, `${pid}.bin`);
      const sysmeta = path.join(dir, `${pid}.xml`);
      await writeFile(file, bytes);
      await writeFile(sysmeta, sysmetaXml(pid, bytes, { rightsHolder: ADMIN, algorithm: "MD5" }));
      return { bytes, pid, file, sysmeta };
    };

    it("an upload begun on one process is seen, continued and used on the other", async () => {
      const { bytes, pid } = await prepare(7 * MIB + 12_345);
      const made = await createUpload(deployment.apiUrls[0] as string, token, bytes.length, {
        checksumAlgorithm: "MD5",
      });
      assert.equal(made.status, 201, made.body);
      const location = made.headers.location ?? "";
      const first = 3 * MIB + 7;
      const sent = await patchUpload(onProcess(location, 0), token, 0, bytes.subarray(0, first));
      assert.ok(sent !== "cut" && sent.status === 204, JSON.stringify(sent));
      // The other process knows the upload: its offset, and counts it on its status page and in its metrics.
      const head = await headUpload(onProcess(location, 1), token);
      assert.equal(head.status, 200);
      assert.equal(head.headers["upload-offset"], String(first));
      const families = await metrics(direct[1] as Caller);
      assert.equal(Number(sample(families, "d1node_uploads_open")[0]?.value), 1);
      assert.equal(Number(sample(families, "d1node_uploads_received_bytes")[0]?.value), first);
      const status = await (await operatorPage(direct[1] as Caller, "/status")).text();
      assert.match(status, /id="open-uploads"[^>]*>1 \(3\.0 MiB received\)</);
      // The rest on the other process, then created on the first: the digests cover every byte, wherever sent.
      const rest = await patchUpload(onProcess(location, 1), token, first, bytes.subarray(first));
      assert.ok(rest !== "cut" && rest.status === 204, JSON.stringify(rest));
      const sysmeta = sysmetaXml(pid, bytes, { rightsHolder: ADMIN, algorithm: "MD5" });
      const created = await call(direct[0] as Caller, "POST", "/object", {
        body: form({ pid, objectUpload: location, sysmeta: { xml: sysmeta } }),
      });
      assert.equal(created.status, 200, await created.clone().text());
      for (const c of direct) assert.deepEqual(await bytesOf(c, pid), bytes);
      // Used up everywhere.
      assert.equal((await headUpload(onProcess(location, 1), token)).status, 404);
    });

    it("d1node upload through the balancer: PATCHes on both processes, the object whole", async () => {
      const { bytes, pid, file, sysmeta } = await prepare(20 * MIB + 999);
      const run = await runCli(upload(file, sysmeta, ["--chunk-size", "3"]), cliEnv());
      assert.equal(run.code, 0, run.stderr);
      assert.equal(run.stdout, `${pid}\n`);
      for (const c of direct) assert.deepEqual(await bytesOf(c, pid), bytes);
      // Seven PATCHes, the creation and the create, round robin: each process answered several uploads' requests.
      for (const c of direct) {
        const answered = sample(await metrics(c), "d1node_http_requests_total")
          .filter((m) => m.labels?.method === "MNStorage.create")
          .reduce((sum, m) => sum + Number(m.value), 0);
        assert.ok(answered >= 3, `${c.baseUrl} answered ${answered} upload requests`);
      }
    });

    it("after one serving process and the command are killed mid-upload, a rerun resumes it on the other", async () => {
      const { bytes, pid, file, sysmeta } = await prepare(40 * MIB);
      const received = async () => {
        const client = new pg.Client({ connectionString: database.url });
        await client.connect();
        try {
          const rows = await client.query<{ received: string }>("select received from uploads");
          return rows.rows.map((row) => Number(row.received));
        } finally {
          await client.end();
        }
      };
      const command = spawn(process.execPath, [BIN, ...upload(file, sysmeta, ["--chunk-size", "2"])], {
        env: { ...process.env, ...cliEnv() },
        stdio: "ignore",
      });
      await eventually("part of the upload received", async () =>
        (await received()).some((n) => n >= 4 * MIB && n < bytes.length) ? true : undefined,
      );
      await deployment.apis[0]?.kill("SIGKILL");
      await new Promise<void>((resolve) => {
        if (command.exitCode !== null) return resolve();
        command.once("exit", () => resolve());
        command.kill("SIGKILL");
      });
      const before = Math.max(...(await received()));
      assert.ok(before > 0 && before < bytes.length, String(before));
      const rerun = await runCli(upload(file, sysmeta, ["--chunk-size", "2"]), cliEnv());
      assert.equal(rerun.code, 0, rerun.stderr);
      assert.match(rerun.stderr, /resuming the upload/);
      assert.equal(rerun.stdout, `${pid}\n`);
      assert.deepEqual(await bytesOf(direct[1] as Caller, pid), bytes);
      assert.deepEqual(await received(), []);
      const documentation = await readFile(new URL("../../../docs/deployment.md", import.meta.url), "utf8");
      assert.match(documentation, /## Uploads across machines/);
    });
  });
}
