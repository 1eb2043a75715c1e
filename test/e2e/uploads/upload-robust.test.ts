/**
 * `d1node upload` for people on bad connections, as they run it: a create whose answer is lost is tried again
 * and counts as done when the node holds the object; a rerun after a refused create sends no byte again (the
 * upload is remembered); `d1node uploads list|prune` shows and ends the remembered ones; answers that cannot
 * succeed (a URL without the base path, a node out of reach) end the run at once; system metadata computed from
 * flags validates against the XSD and is what the node stores.
 */
import assert from "node:assert/strict";
import { createHash, randomBytes } from "node:crypto";
import { mkdir, writeFile } from "node:fs/promises";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { mayChangeOnRetry } from "../../../src/cli/upload/upload-retry.ts";
import { parseSystemMetadata } from "../../../src/types/index.ts";
import { call } from "../../helpers/clients/client.ts";
import { sysmetaXml, uniquePid } from "../../helpers/data/sysmeta.ts";
import {
  closeUploadBench,
  firstMatching,
  openUploadBench,
  type TcpProxy,
  type UploadBench,
} from "../../helpers/faults/tcp-proxy.ts";
import { type CliRun, runCli } from "../../helpers/nodes/cli.ts";
import type { TestNode } from "../../helpers/nodes/node.ts";
import { freePort } from "../../helpers/nodes/scale-out.ts";
import { validateXml } from "../../helpers/validation/xmllint.ts";

const ALICE = "CN=Alice,O=d1node,C=US,DC=cilogon,DC=org";

describe("d1node upload on bad connections", () => {
  let node: TestNode;
  /** Every request to the node goes through it. */
  let proxy: TcpProxy;
  let folder: string;
  let tokenFile: string;
  /** The command, remembering its uploads in the test's folder. */
  const cli = (args: string[]): Promise<CliRun> => runCli(args, { XDG_STATE_HOME: folder });
  const read = async (pid: string) =>
    Buffer.from(
      await (
        await call({ baseUrl: node.baseUrl }, "GET", `/object/${encodeURIComponent(pid)}`)
      ).arrayBuffer(),
    );
  let bench: UploadBench | undefined;
  before(async () => {
    bench = await openUploadBench(ALICE);
    ({ node, proxy, folder, tokenFile } = bench);
  });
  after(() => closeUploadBench(bench));

  /** A public object's bytes in a file, with its system metadata (`checksum` given: a wrong one). */
  async function prepare(bytes: Buffer, checksum?: string) {
    const pid = uniquePid("robust");
    const file = path.join(folder, `${pid}.bin`);
    const sysmeta = path.join(folder, `${pid}.xml`);
    await writeFile(file, bytes);
    await writeFile(
      sysmeta,
      sysmetaXml(pid, bytes, { rightsHolder: ALICE, ...(checksum ? { checksum } : {}) }),
    );
    return { file, sysmeta, pid };
  }

  it("a create whose answer is lost is tried again and counts as done once the node holds the object", async () => {
    const bytes = randomBytes(200_000);
    const { file, sysmeta, pid } = await prepare(bytes);
    proxy.decide = firstMatching(/^POST \S*\/v2\/object /, 1, "dropAnswer");
    const run = await cli([
      "upload",
      file,
      "--to",
      node.baseUrl,
      "--sysmeta",
      sysmeta,
      "--token-file",
      tokenFile,
    ]);
    assert.equal(run.code, 0, run.stderr);
    assert.equal(run.stdout, `${pid}\n`);
    assert.match(run.stderr, /create of \S+: connection lost, retrying in 1 s\n/);
    assert.match(run.stderr, /on the node with the same checksum: created/);
    assert.deepEqual(await read(pid), bytes);
    const listed = await cli(["uploads", "list"]);
    assert.equal(listed.code, 0, listed.stderr);
    assert.equal(listed.stdout, "", "a created object's upload is forgotten");
  });

  it("a rerun after a refused create sends no byte again; prune ends an abandoned upload on the node", async () => {
    const bytes = randomBytes(3 << 20);
    const { file, sysmeta, pid } = await prepare(bytes, "0".repeat(40));
    const args = ["upload", file, "--to", node.baseUrl, "--sysmeta", sysmeta, "--token-file", tokenFile];
    const refused = await cli(args);
    assert.equal(refused.code, 2, refused.stderr);
    assert.match(refused.stderr, /InvalidSystemMetadata.*a rerun creates without sending them again/);
    assert.ok(proxy.patchBytes() >= bytes.length, `${proxy.patchBytes()} ${refused.stderr}`);
    const listed = await cli(["uploads", "list", "--token-file", tokenFile]);
    assert.equal(listed.code, 0, listed.stderr);
    assert.ok(listed.stdout.includes(`${file}\t${bytes.length} bytes\t`), listed.stdout);
    assert.match(listed.stdout, new RegExp(`\t${bytes.length} of ${bytes.length} bytes on the node\n$`));

    // The system metadata corrected, the same command again: straight to the create.
    await writeFile(sysmeta, sysmetaXml(pid, bytes, { rightsHolder: ALICE }));
    const sent = proxy.patchBytes();
    const rerun = await cli(args);
    assert.equal(rerun.code, 0, rerun.stderr);
    assert.equal(rerun.stdout, `${pid}\n`);
    assert.match(rerun.stderr, /resuming the upload of /);
    assert.equal(proxy.patchBytes(), sent, "no byte sent again");
    assert.deepEqual(await read(pid), bytes);

    // Abandoned: refused, never rerun. prune ends it on the node.
    const other = await prepare(randomBytes(100_000), "0".repeat(40));
    const abandoned = await cli([
      "upload",
      other.file,
      "--to",
      node.baseUrl,
      "--sysmeta",
      other.sysmeta,
      "--token-file",
      tokenFile,
    ]);
    assert.equal(abandoned.code, 2);
    const url = (await cli(["uploads", "list", "--to", node.baseUrl])).stdout.split("\t")[3]?.trim() ?? "";
    assert.match(url, /\/uploads\/[0-9a-f]{32}$/);
    const pruned = await cli(["uploads", "prune", "--to", node.baseUrl, "--token-file", tokenFile]);
    assert.equal(pruned.code, 0, pruned.stderr);
    assert.equal(pruned.stdout, `ended ${url} (${path.basename(other.file)})\n`);
    const head = await fetch(url, {
      method: "HEAD",
      headers: { authorization: `Bearer ${await node.token(ALICE)}`, "tus-resumable": "1.0.0" },
    });
    assert.equal(head.status, 404, "the node no longer holds it");
    assert.equal((await cli(["uploads", "list"])).stdout, "");
  });

  it("answers that cannot succeed end the run at once, with one line", async () => {
    const { file, sysmeta } = await prepare(randomBytes(1000));
    const origin = new URL(node.baseUrl).origin;
    const cases: [string, RegExp][] = [
      [origin, /does not answer the Member Node API \(HTTP 501/],
      [
        `http://127.0.0.1:${await freePort()}/mn`,
        /cannot reach http:\/\/127\.0\.0\.1:\d+\/mn: .*ECONNREFUSED/,
      ],
    ];
    for (const [to, expected] of cases) {
      const run = await cli(["upload", file, "--to", to, "--sysmeta", sysmeta, "--token-file", tokenFile]);
      assert.equal(run.code, 2, run.stderr);
      assert.match(run.stderr, expected);
      // One line: no retry was announced.
      assert.equal(run.stderr.trim().split("\n").length, 1, run.stderr);
    }
    // A full node (InsufficientResources, also as a 500) and refusals are final; lost connections, 409, 423, 429
    // and other server errors are retried.
    const full = '<error name="InsufficientResources" errorCode="413" detailCode="0"/>';
    for (const [status, body] of [
      [413, full],
      [500, full],
      [400, ""],
      [403, ""],
      [404, ""],
      [501, ""],
    ] as const)
      assert.equal(mayChangeOnRetry(status, body), false, `${status}`);
    for (const status of [0, 409, 423, 429, 500, 502, 503, 504]) assert.equal(mayChangeOnRetry(status), true);
  });

  it("system metadata computed from flags validates, and is what the node stores", async () => {
    const bytes = Buffer.from("site,depth\nA,3\n");
    const file = path.join(folder, "samples.csv");
    await writeFile(file, bytes);
    const flags = ["--public", "--access", "CN=Bob,DC=org=write", "--token-file", tokenFile];
    const dry = await cli(["upload", file, "--to", node.baseUrl, ...flags, "--dry-run"]);
    assert.equal(dry.code, 0, dry.stderr);
    await validateXml(dry.stdout);
    const computed = parseSystemMetadata(dry.stdout);
    assert.match(computed.identifier, /^urn:uuid:[0-9a-f-]{36}$/);
    assert.equal(computed.formatId, "text/csv");
    assert.equal(computed.size, bytes.length);
    assert.deepEqual(computed.checksum, {
      algorithm: "SHA-256",
      value: createHash("sha256").update(bytes).digest("hex"),
    });
    assert.equal(computed.submitter, ALICE);
    assert.equal(computed.rightsHolder, ALICE);
    assert.equal(computed.fileName, "samples.csv");
    assert.deepEqual(computed.accessPolicy, [
      { subjects: ["public"], permissions: ["read"] },
      { subjects: ["CN=Bob,DC=org"], permissions: ["write"] },
    ]);
    assert.equal(
      (await call({ baseUrl: node.baseUrl }, "GET", `/meta/${encodeURIComponent(computed.identifier)}`))
        .status,
      404,
      "a dry run sends nothing",
    );

    const pid = uniquePid("flags");
    const run = await cli(["upload", file, "--to", node.baseUrl, ...flags, "--pid", pid]);
    assert.equal(run.code, 0, run.stderr);
    assert.equal(run.stdout, `${pid}\n`);
    const stored = parseSystemMetadata(
      await (await call({ baseUrl: node.baseUrl }, "GET", `/meta/${encodeURIComponent(pid)}`)).text(),
    );
    assert.equal(stored.formatId, "text/csv");
    assert.equal(stored.rightsHolder, ALICE);
    assert.deepEqual(await read(pid), bytes);

    const mixed = await cli([
      "upload",
      file,
      "--to",
      node.baseUrl,
      "--sysmeta",
      file,
      "--public",
      "--token-file",
      tokenFile,
    ]);
    assert.equal(mixed.code, 2);
    assert.match(mixed.stderr, /--public compute system metadata: give them or --sysmeta, not both/);

    // A package of files without system metadata: each computed, its format from its name.
    const pkg = path.join(folder, "package");
    await mkdir(pkg);
    await writeFile(path.join(pkg, "a.csv"), "x\n1\n");
    await writeFile(path.join(pkg, "b.txt"), "notes\n");
    const sent = await cli([
      "upload",
      "--package",
      pkg,
      "--to",
      node.baseUrl,
      "--public",
      "--token-file",
      tokenFile,
    ]);
    assert.equal(sent.code, 0, sent.stderr);
    const pids = sent.stdout.trim().split("\n");
    assert.equal(pids.length, 2);
    const formats = [];
    for (const each of pids) {
      const meta = await call({ baseUrl: node.baseUrl }, "GET", `/meta/${encodeURIComponent(each)}`);
      assert.equal(meta.status, 200, "public");
      formats.push(parseSystemMetadata(await meta.text()).formatId);
    }
    assert.deepEqual(formats, ["text/csv", "text/plain"]);
  });
});
