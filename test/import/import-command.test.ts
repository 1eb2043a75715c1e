/**
 * `d1node import` from a real d1node Member Node, into a target on SQLite and on PostgreSQL: 1,000 loaded objects
 * plus SID chains, a chain without SID, an archived and a private object. The first run is killed (SIGKILL)
 * half-way, the second continues from there (it does not copy everything again) and copies the event log, a third
 * finds nothing to do. Then the target serves, and every object's system metadata and bytes equal the source's.
 */
import assert from "node:assert/strict";
import { type ChildProcess, execFile, spawn } from "node:child_process";
import { createHash } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { parseLog, parseObjectList, parseSystemMetadata } from "../../src/types/index.ts";
import { type Caller, call, create, enc, update } from "../helpers/clients/client.ts";
import { createTestPostgresDatabase, type TestPostgres } from "../helpers/db/postgres.ts";
import { ADMIN, startTestNode, type TestNode, testDialects } from "../helpers/nodes/node.ts";

const BIN = fileURLToPath(new URL("../../bin/d1node.js", import.meta.url));
/** The import runs with its clock ahead: objects written just now are past its 2 s lag, without a wait. */
const CLOCK_AHEAD = fileURLToPath(new URL("../helpers/time/clock-ahead.mjs", import.meta.url));
const NODE_ID = "urn:node:TESTMN";
const LOADED = 1000;

interface Run {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/** `d1node import ...args`; with `killAfter`, killed (SIGKILL) once its progress shows that many objects done. */
function runImport(args: string[], killAfter?: number): Promise<Run> {
  const child: ChildProcess = spawn(process.execPath, ["--import", CLOCK_AHEAD, BIN, "import", ...args], {
    stdio: ["ignore", "pipe", "pipe"],
    env: { ...process.env, D1NODE_NODE_ID: NODE_ID },
  });
  let stdout = "";
  let stderr = "";
  child.stdout?.on("data", (chunk: Buffer) => {
    stdout += chunk.toString();
  });
  child.stderr?.on("data", (chunk: Buffer) => {
    stderr += chunk.toString();
    const done = [...stderr.matchAll(/import: (\d+)\//g)].map((m) => Number(m[1]));
    if (killAfter !== undefined && Math.max(0, ...done) >= killAfter) child.kill("SIGKILL");
  });
  return new Promise((resolve) =>
    child.once("exit", (code, signal) => resolve({ code, signal, stdout, stderr })),
  );
}

const sha256 = (bytes: ArrayBuffer) => createHash("sha256").update(Buffer.from(bytes)).digest("hex");

async function text(caller: Caller, route: string): Promise<string> {
  const response = await call(caller, "GET", route);
  assert.equal(response.status, 200, `${route}: ${response.status}`);
  return response.text();
}

describe("d1node import", () => {
  let source: TestNode;
  let admin: Caller;
  let token: string;
  const handMade: string[] = [];
  const sid = `import-sid-${Date.now()}`;

  before(async () => {
    const dataDir = await mkdtemp(path.join(tmpdir(), "d1node-import-source-"));
    await promisify(execFile)(process.execPath, [BIN, "load", "-d", dataDir, "--count", String(LOADED)], {
      env: { ...process.env, D1NODE_NODE_ID: NODE_ID },
    });
    source = await startTestNode("sqlite", { dataDir, nodeId: NODE_ID });
    token = await source.token(ADMIN);
    admin = { baseUrl: source.baseUrl, token };
    const tag = `imp-${Date.now()}`;
    const made = async (response: Response, pid: string) => {
      assert.equal(response.status, 200, await response.text());
      handMade.push(pid);
    };
    // A series of three versions, a chain without a series, an archived object, a private one.
    await made(await create(admin, `${tag}-a1`, Buffer.from("a1\n"), { seriesId: sid }), `${tag}-a1`);
    await made(
      await update(admin, `${tag}-a1`, `${tag}-a2`, Buffer.from("a2\n"), { seriesId: sid }),
      `${tag}-a2`,
    );
    await made(
      await update(admin, `${tag}-a2`, `${tag}-a3`, Buffer.from("a3\n"), { seriesId: sid }),
      `${tag}-a3`,
    );
    await made(await create(admin, `${tag}-b1`, Buffer.from("b1\n"), { algorithm: "MD5" }), `${tag}-b1`);
    await made(await update(admin, `${tag}-b1`, `${tag}-b2`, Buffer.from("b2\n")), `${tag}-b2`);
    await made(await create(admin, `${tag}-c`, Buffer.from("archived\n")), `${tag}-c`);
    assert.equal((await call(admin, "PUT", `/archive/${enc(`${tag}-c`)}`)).status, 200);
    await made(
      await create(admin, `${tag}-d`, Buffer.from("private\n"), { readers: ["CN=someone"] }),
      `${tag}-d`,
    );
  });

  after(async () => {
    await source?.close();
  });

  for (const dialect of testDialects()) {
    describe(dialect, () => {
      let dataDir: string;
      let pg: TestPostgres | undefined;
      let flags: string[];
      const cleanups: (() => Promise<void>)[] = [];

      before(async () => {
        dataDir = await mkdtemp(path.join(tmpdir(), "d1node-import-target-"));
        cleanups.push(() => rm(dataDir, { recursive: true, force: true }));
        if (dialect === "postgres") {
          pg = await createTestPostgresDatabase();
          cleanups.push(pg.drop);
        }
        flags = ["--from", source.baseUrl, "--token", token, "-d", dataDir, "--page-size", "50"];
        if (pg) flags.push("--database-url", pg.url);
      });

      after(async () => {
        for (const cleanup of cleanups.reverse()) await cleanup();
      });

      it("is killed half-way, continues where it stopped, then has nothing left to do", async () => {
        const total = LOADED + handMade.length;
        const killed = await runImport([...flags, "--concurrency", "2"], 300);
        assert.equal(killed.signal, "SIGKILL", `the first run ended before it was killed:\n${killed.stderr}`);

        const resumed = await runImport([...flags, "--logs"]);
        assert.equal(resumed.code, 0, resumed.stderr);
        const counts = /objects copied (\d+), updated (\d+), unchanged (\d+), failed (\d+)/.exec(
          resumed.stdout,
        );
        assert.ok(counts, resumed.stdout);
        const copied = Number(counts[1]);
        assert.ok(copied > 0 && copied <= total - 250, `the second run copied ${copied} of ${total}`);
        assert.equal(Number(counts[4]), 0);
        const logs = /log entries copied (\d+)/.exec(resumed.stdout);
        assert.ok(logs && Number(logs[1]) > 0, resumed.stdout);

        const again = await runImport(flags);
        assert.equal(again.code, 0, again.stderr);
        assert.match(again.stdout, /objects copied 0, updated 0, unchanged \d+, failed 0/);
      });

      it("holds every object as the source has it: system metadata and bytes, series and search", async () => {
        const target = await startTestNode("sqlite", {
          dataDir,
          nodeId: NODE_ID,
          ...(pg ? { databaseUrl: pg.url } : {}),
        });
        cleanups.unshift(() => target.node.close());
        const there: Caller = { baseUrl: target.baseUrl, token: await target.token(ADMIN) };
        const sourceList = parseObjectList(await text(admin, "/object?count=5000"));
        const targetList = parseObjectList(await text(there, "/object?count=5000"));
        const pids = sourceList.items.map((item) => item.identifier).sort();
        assert.equal(pids.length, LOADED + handMade.length);
        assert.deepEqual(targetList.items.map((item) => item.identifier).sort(), pids);
        for (const pid of pids) {
          const expected = parseSystemMetadata(await text(admin, `/meta/${enc(pid)}`));
          const actual = parseSystemMetadata(await text(there, `/meta/${enc(pid)}`));
          assert.deepEqual(actual, expected, pid);
        }
        for (const pid of [...handMade, ...pids.filter((_, i) => i % 100 === 0)]) {
          const a = await (await call(admin, "GET", `/object/${enc(pid)}`)).arrayBuffer();
          const b = await (await call(there, "GET", `/object/${enc(pid)}`)).arrayBuffer();
          assert.equal(sha256(b), sha256(a), pid);
        }
        // The series resolves to its newest version; the private object stays private; search finds the copies.
        const head = parseSystemMetadata(await text(there, `/meta/${enc(sid)}`));
        assert.equal(head.identifier, handMade[2]);
        const privatePid = handMade[6] as string;
        assert.equal(
          (await call({ baseUrl: target.baseUrl }, "GET", `/meta/${enc(privatePid)}`)).status,
          401,
        );
        const found = await text(there, `/query/solr/?q=seriesId:${enc(`"${sid}"`)}&fl=id&rows=10`);
        for (const pid of handMade.slice(0, 3)) assert.ok(found.includes(pid), found);
        // The source's event log is in the target's.
        const sourceLog = parseLog(await text(admin, "/log?count=0"));
        const targetLog = parseLog(await text(there, "/log?count=0"));
        assert.ok(targetLog.total > 0 && sourceLog.total > 0);
      });
    });
  }
});
