/**
 * `d1node upload`: a file sent through the resumable path (with a proxy in between that cuts the first PATCHes
 * off part-way), created with objectUpload and read back; operator mistakes are one line and exit code 2; a data
 * package with `--package`, its resource map last.
 */
import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { mkdtemp, writeFile } from "node:fs/promises";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { call } from "../../helpers/clients/client.ts";
import { RESOURCE_MAP_FORMAT, resourceMapXml } from "../../helpers/data/resource-map.ts";
import { type SysmetaOptions, sysmetaXml, uniquePid } from "../../helpers/data/sysmeta.ts";
import {
  closeUploadBench,
  firstMatching,
  openUploadBench,
  type TcpProxy,
  type UploadBench,
} from "../../helpers/faults/tcp-proxy.ts";
import { type CliRun, runCli as runAnyCli } from "../../helpers/nodes/cli.ts";
import type { TestNode } from "../../helpers/nodes/node.ts";

const ALICE = "CN=Alice,O=d1node,C=US,DC=cilogon,DC=org";

describe("d1node upload", () => {
  let node: TestNode;
  /** Every request to the node goes through it (upload URLs too: the node's base URL is the proxy's). */
  let proxy: TcpProxy;
  let folder: string;
  let tokenFile: string;
  /** The command, remembering its uploads in the test's folder. */
  const runCli = (args: string[]): Promise<CliRun> => runAnyCli(args, { XDG_STATE_HOME: folder });
  let bench: UploadBench | undefined;
  before(async () => {
    bench = await openUploadBench(ALICE);
    ({ node, proxy, folder, tokenFile } = bench);
  });
  after(() => closeUploadBench(bench));

  async function prepare(bytes: Buffer): Promise<{ file: string; sysmeta: string; pid: string }> {
    const pid = uniquePid("cli-upload");
    const file = path.join(folder, `${pid}.bin`);
    const sysmeta = path.join(folder, `${pid}.xml`);
    await writeFile(file, bytes);
    await writeFile(sysmeta, sysmetaXml(pid, bytes, { rightsHolder: ALICE }));
    return { file, sysmeta, pid };
  }

  it("uploads through dropped connections, creates the object and prints its identifier", async () => {
    const bytes = randomBytes(6 << 20);
    const { file, sysmeta, pid } = await prepare(bytes);
    proxy.decide = firstMatching(/^PATCH /, 2, { cutAfter: 1 << 20 });
    const run = await runCli([
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
    assert.match(run.stderr, /uploaded .*6\.0 MiB/);
    assert.match(run.stderr, /connection lost, retrying in 1 s\n/);
    const read = await call({ baseUrl: node.baseUrl }, "GET", `/object/${encodeURIComponent(pid)}`);
    assert.deepEqual(Buffer.from(await read.arrayBuffer()), bytes);
  });

  it("operator mistakes: one line, exit code 2", async () => {
    const { file, sysmeta } = await prepare(randomBytes(1000));
    const base = ["upload", file, "--to", node.baseUrl, "--sysmeta", sysmeta];
    const cases: [string[], RegExp][] = [
      [[...base], /give credentials/],
      [
        [...base, "--token-file", tokenFile, "--pid", "other"],
        /differs from the system metadata's identifier/,
      ],
      [
        ["upload", tokenFile, "--to", node.baseUrl, "--sysmeta", sysmeta, "--token-file", tokenFile],
        /has \d+ bytes but/,
      ],
    ];
    for (const [args, expected] of cases) {
      const run = await runCli(args);
      assert.equal(run.code, 2, run.stderr);
      assert.match(run.stderr, expected);
      assert.equal(run.stderr.trim().split("\n").length, 1, run.stderr);
    }
    const stranger = path.join(folder, "stranger");
    await writeFile(stranger, "not a token");
    const refused = await runCli([...base, "--token-file", stranger]);
    assert.equal(refused.code, 2);
    assert.match(refused.stderr, /the upload failed: InvalidToken|NotAuthorized/);
  });

  it("--package: the data and metadata first, the resource map last; a failure leaves no map", async () => {
    const data = uniquePid("pkg-csv");
    const metadata = uniquePid("pkg-eml");
    const map = uniquePid("pkg-map");
    const pkg = await mkdtemp(path.join(folder, "package-"));
    const put = async (name: string, pid: string, bytes: Buffer, options: SysmetaOptions = {}) => {
      await writeFile(path.join(pkg, name), bytes);
      const sysmeta = sysmetaXml(pid, bytes, { rightsHolder: ALICE, ...options });
      await writeFile(path.join(pkg, `${name}.sysmeta.xml`), sysmeta);
    };
    // Named so that the map sorts first: the command still sends it last.
    await put("a-map.rdf", map, Buffer.from(resourceMapXml(map, metadata, [data])), {
      formatId: RESOURCE_MAP_FORMAT,
    });
    await put("b-data.csv", data, Buffer.from("t,v\n1,2\n"), { checksum: "0".repeat(40) });
    await put("c-metadata.xml", metadata, Buffer.from("<eml/>"), { formatId: "text/xml" });
    const args = ["upload", "--package", pkg, "--to", node.baseUrl, "--token-file", tokenFile];

    const failed = await runCli(args);
    assert.equal(failed.code, 2, failed.stderr);
    assert.match(
      failed.stderr,
      /b-data\.csv: .*InvalidSystemMetadata.*created: none; not sent: c-metadata\.xml, a-map\.rdf/,
    );
    const anon = { baseUrl: node.baseUrl };
    assert.equal((await call(anon, "GET", `/meta/${encodeURIComponent(map)}`)).status, 404);

    await put("b-data.csv", data, Buffer.from("t,v\n1,2\n"));
    const run = await runCli(args);
    assert.equal(run.code, 0, run.stderr);
    assert.equal(run.stdout, `${data}\n${metadata}\n${map}\n`);
    assert.equal((await call(anon, "GET", `/meta/${encodeURIComponent(map)}`)).status, 200);
  });
});
