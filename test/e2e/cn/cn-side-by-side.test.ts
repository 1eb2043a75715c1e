/**
 * One process hosts a CN and an MN: `d1node serve --role cn --also mn.json` starts both, the CN at /cn (the
 * default base path of the cn role), the MN from its own file; each answers as its own kind of node.
 */
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { fileURLToPath } from "node:url";
import { validateXml } from "../../helpers/validation/xmllint.ts";

const BIN = fileURLToPath(new URL("../../../bin/d1node.js", import.meta.url));

describe("a CN and an MN in one process", () => {
  let dir: string;
  let child: ReturnType<typeof spawn>;
  const urls: string[] = [];
  before(async () => {
    dir = await mkdtemp(path.join(tmpdir(), "d1node-side-"));
    const mnFile = path.join(dir, "mn.json");
    await writeFile(
      mnFile,
      JSON.stringify({ port: 0, dataDir: path.join(dir, "mn"), nodeId: "urn:node:SIDEMN", logLevel: "warn" }),
    );
    child = spawn(process.execPath, [
      BIN,
      "serve",
      "--role",
      "cn",
      "--port",
      "0",
      "--log-level",
      "warn",
      "--node-id",
      "urn:node:SIDECN",
      "--data-dir",
      path.join(dir, "cn"),
      "--also",
      mnFile,
    ]);
    let output = "";
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`did not start:\n${output}`)), 30_000);
      child.stdout?.on("data", (chunk: Buffer) => {
        output += chunk.toString();
        urls.splice(0, urls.length, ...[...output.matchAll(/serving (\S+)/g)].map((m) => m[1] as string));
        if (urls.length === 2) {
          clearTimeout(timer);
          resolve();
        }
      });
      child.stderr?.on("data", (chunk: Buffer) => {
        output += chunk.toString();
      });
    });
  });
  after(async () => {
    await new Promise((resolve) => {
      child.once("exit", resolve);
      child.kill("SIGTERM");
    });
    await rm(dir, { recursive: true, force: true });
  });

  it("serves the CN at /cn and the MN at /mn, each with its own Node document", async () => {
    const [cn, mn] = urls as [string, string];
    assert.match(cn, /\/cn$/);
    assert.match(mn, /\/mn$/);
    const cnNode = await (await fetch(`${cn}/v2/`)).text();
    await validateXml(cnNode);
    assert.match(cnNode, /type="cn"/);
    assert.match(cnNode, /urn:node:SIDECN/);
    const mnNode = await (await fetch(`${mn}/v2/`)).text();
    await validateXml(mnNode);
    assert.match(mnNode, /type="mn"/);
    assert.match(mnNode, /urn:node:SIDEMN/);
  });
});
