/**
 * The node as an operator runs it: the README's own command, started as a process. SIGTERM (a service manager's
 * stop) and SIGINT (Ctrl-C) reach the server itself, let the request in flight finish, and the process exits 0
 * with nothing left listening. `d1node federation` and `d1node worker` stop the same way.
 */
import assert from "node:assert/strict";
import { type ChildProcess, spawn } from "node:child_process";
import { createHash, randomBytes } from "node:crypto";
import { readFileSync } from "node:fs";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import http from "node:http";
import net from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, describe, it } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";
import { fileURLToPath } from "node:url";
import { loadOrCreateSigningKey } from "../../../src/auth/keys.ts";
import { mintToken } from "../../../src/auth/tokens.ts";
import { sysmetaXml, uniquePid } from "../../helpers/data/sysmeta.ts";
import { ADMIN } from "../../helpers/nodes/node.ts";

const ROOT = fileURLToPath(new URL("../../../", import.meta.url));

/** The README's first command, after `npm install &&`: e.g. ["./bin/d1node.js", "serve"]. */
function readmeServeCommand(): string[] {
  const readme = readFileSync(path.join(ROOT, "README.md"), "utf8");
  const line = /```sh\nnpm install && ([^#\n]+?)\s*(#|\n)/.exec(readme)?.[1];
  assert.ok(line, "README: no `npm install && ...` command in the first sh block");
  return line.split(/\s+/);
}

interface Started {
  child: ChildProcess;
  output: () => string;
  exit: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/** Runs `command` (a program path taken from the checkout) in `cwd`; resolves once `ready` shows in its output. */
async function start(command: string[], cwd: string, ready: RegExp): Promise<Started> {
  const [program = "", ...args] = command;
  const executable = program.includes("/") ? path.resolve(ROOT, program) : program;
  const child = spawn(executable, args, { cwd, stdio: ["ignore", "pipe", "pipe"] });
  let output = "";
  child.stdout?.on("data", (chunk: Buffer) => {
    output += chunk;
  });
  child.stderr?.on("data", (chunk: Buffer) => {
    output += chunk;
  });
  const exit = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once("exit", (code, signal) => resolve({ code, signal })),
  );
  const started = Date.now();
  while (!ready.test(output)) {
    if (child.exitCode !== null) assert.fail(`exited with ${child.exitCode} before it was ready:\n${output}`);
    if (Date.now() - started > 60_000) assert.fail(`not ready after 60 s:\n${output}`);
    await sleep(50);
  }
  return { child, output: () => output, exit };
}

/** The program the process runs: the server itself (node on bin/d1node.js), not a wrapper around it. */
function commandLineOf(pid: number): string {
  return readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0").join(" ");
}

function listening(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect(port, "127.0.0.1");
    socket.once("connect", () => {
      socket.destroy();
      resolve(true);
    });
    socket.once("error", () => resolve(false));
  });
}

/** A create whose object part arrives slowly (`chunks` pieces, `gapMs` apart); resolves with the answer. */
function slowCreate(
  baseUrl: string,
  token: string,
  pid: string,
  object: Buffer,
  chunks: number,
  gapMs: number,
  onFirstChunk: () => void,
): Promise<{ status: number; body: string }> {
  const boundary = `----d1node${randomBytes(8).toString("hex")}`;
  const part = (name: string, filename: string, type: string) =>
    `--${boundary}\r\nContent-Disposition: form-data; name="${name}"; filename="${filename}"\r\n` +
    `Content-Type: ${type}\r\n\r\n`;
  const head = Buffer.from(
    `--${boundary}\r\nContent-Disposition: form-data; name="pid"\r\n\r\n${pid}\r\n` +
      `${part("sysmeta", "sysmeta.xml", "text/xml")}${sysmetaXml(pid, object)}\r\n` +
      part("object", "object.bin", "application/octet-stream"),
  );
  const tail = Buffer.from(`\r\n--${boundary}--\r\n`);
  return new Promise((resolve, reject) => {
    const request = http.request(`${baseUrl}/v2/object`, {
      method: "POST",
      headers: {
        authorization: `Bearer ${token}`,
        "content-type": `multipart/form-data; boundary=${boundary}`,
        "content-length": head.length + object.length + tail.length,
      },
    });
    request.once("error", reject);
    request.once("response", (response) => {
      let body = "";
      response.setEncoding("utf8").on("data", (chunk: string) => {
        body += chunk;
      });
      response.once("end", () => resolve({ status: response.statusCode ?? 0, body }));
    });
    (async () => {
      request.write(head);
      const size = Math.ceil(object.length / chunks);
      for (let at = 0; at < object.length; at += size) {
        request.write(object.subarray(at, at + size));
        if (at === 0) onFirstChunk();
        await sleep(gapMs);
      }
      request.end(tail);
    })().catch(reject);
  });
}

describe("the node as a process", () => {
  const folders: string[] = [];
  const children: ChildProcess[] = [];
  after(async () => {
    for (const child of children)
      if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
    for (const folder of folders) await rm(folder, { recursive: true, force: true });
  });
  const tempFolder = async (tag: string) => {
    const folder = await mkdtemp(path.join(tmpdir(), `d1node-${tag}-`));
    folders.push(folder);
    return folder;
  };

  for (const signal of ["SIGTERM", "SIGINT"] as const) {
    it(`${signal}: the README's command finishes the upload in flight, then exits 0`, {
      timeout: 120_000,
    }, async () => {
      const cwd = await tempFolder("process");
      const command = [
        ...readmeServeCommand(),
        "--port",
        "0",
        "--admin-subject",
        ADMIN,
        "--log-level",
        "warn",
      ];
      const node = await start(command, cwd, /serving (\S+)/);
      children.push(node.child);
      const baseUrl = /serving (\S+)/.exec(node.output())?.[1] ?? "";
      const port = Number(new URL(baseUrl).port);
      const pid = node.child.pid ?? 0;
      assert.match(
        commandLineOf(pid),
        /^\S*node\b.*bin\/d1node\.js serve/,
        "the started process is the server",
      );

      // The README's data folder: ./d1node-data, relative to where the command runs.
      const token = await mintToken(loadOrCreateSigningKey(path.join(cwd, "d1node-data")).privateKey, {
        subject: ADMIN,
      });
      const object = randomBytes(8 * 1024 * 1024);
      const identifier = uniquePid("signal");
      const upload = slowCreate(baseUrl, token, identifier, object, 16, 150, () => {
        setTimeout(() => node.child.kill(signal), 300);
      });
      const answer = await upload;
      assert.equal(answer.status, 200, answer.body);

      const stopped = await Promise.race([node.exit, sleep(10_000).then(() => undefined)]);
      assert.deepEqual(stopped, { code: 0, signal: null }, `exit after ${signal}:\n${node.output()}`);
      assert.equal(await listening(port), false, "something still listens on the node's port");
      assert.throws(() => process.kill(pid, 0), { code: "ESRCH" });

      // The upload that was in flight is stored whole: a restarted node serves it.
      const again = await start(command, cwd, /serving (\S+)/);
      children.push(again.child);
      const nextUrl = /serving (\S+)/.exec(again.output())?.[1] ?? "";
      const response = await fetch(`${nextUrl}/v2/object/${encodeURIComponent(identifier)}`);
      assert.equal(response.status, 200);
      const digest = createHash("sha1")
        .update(Buffer.from(await response.arrayBuffer()))
        .digest("hex");
      assert.equal(digest, createHash("sha1").update(object).digest("hex"));
      again.child.kill("SIGTERM");
      assert.deepEqual(await again.exit, { code: 0, signal: null });
    });
  }

  it("SIGTERM stops `d1node federation` with exit 0", { timeout: 120_000 }, async () => {
    const cwd = await tempFolder("federation");
    const federation = await start(
      ["bin/d1node.js", "federation", "--mns", "1", "--base-port", "0"],
      cwd,
      /^token \S+$/m,
    );
    children.push(federation.child);
    const urls = [...federation.output().matchAll(/serving (\S+)/g)].map((match) => match[1] ?? "");
    assert.equal(urls.length, 2);
    federation.child.kill("SIGTERM");
    const stopped = await Promise.race([federation.exit, sleep(10_000).then(() => undefined)]);
    assert.deepEqual(stopped, { code: 0, signal: null }, federation.output());
    for (const url of urls) assert.equal(await listening(Number(new URL(url).port)), false, url);
  });

  it("SIGTERM stops `d1node worker` with exit 0", { timeout: 120_000 }, async () => {
    const cwd = await tempFolder("worker");
    const config = path.join(cwd, "node.json");
    await writeFile(config, JSON.stringify({ dataDir: path.join(cwd, "data") }));
    const worker = await start(
      ["bin/d1node.js", "worker", "--config", config],
      cwd,
      /worker for \S+ running/,
    );
    children.push(worker.child);
    worker.child.kill("SIGTERM");
    const stopped = await Promise.race([worker.exit, sleep(10_000).then(() => undefined)]);
    assert.deepEqual(stopped, { code: 0, signal: null }, worker.output());
  });
});
