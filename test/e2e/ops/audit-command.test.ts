/**
 * `d1node audit` on a real node, both dialects (SQLite: the node running, asked over its control socket;
 * PostgreSQL: the command opens the database beside the serving node). A byte flipped on disk and a file removed
 * are found, named, and give exit code 1; the run is recorded for the status page (`db.audit.latest()`); after
 * the damage is undone the audit passes with exit code 0.
 */
import assert from "node:assert/strict";
import { createHash, randomBytes } from "node:crypto";
import { readFile, rename, writeFile } from "node:fs/promises";
import path from "node:path";
import { before, describe, it } from "node:test";
import { type Caller, create } from "../../helpers/clients/client.ts";
import { uniquePid } from "../../helpers/data/sysmeta.ts";
import { runCli } from "../../helpers/nodes/cli.ts";
import { ADMIN, testDialects, withTestNode } from "../../helpers/nodes/node.ts";

const objectFile = (dataDir: string, bytes: Buffer) => {
  const key = createHash("sha256").update(bytes).digest("hex");
  return path.join(dataDir, "store", "objects", key.slice(0, 2), key.slice(2, 4), key);
};

for (const dialect of testDialects()) {
  describe(`d1node audit (${dialect})`, () => {
    const node = withTestNode(dialect);
    let flags: string[];
    const objects = new Map<string, Buffer>();

    before(async () => {
      const admin: Caller = { baseUrl: node.baseUrl, token: await node.token(ADMIN) };
      for (let i = 0; i < 12; i++) {
        const pid = uniquePid(`audit${i}`);
        const bytes = randomBytes(i === 0 ? 3 * 1024 * 1024 : 1000 + i);
        objects.set(pid, bytes);
        const algorithm = (["MD5", "SHA-1", "SHA-256"] as const)[i % 3];
        assert.equal((await create(admin, pid, bytes, algorithm ? { algorithm } : {})).status, 200);
      }
      const url = node.node.ctx.config.databaseUrl;
      flags = ["--data-dir", node.dataDir, ...(url ? ["--database-url", url] : [])];
    });

    it("passes on intact bytes", { timeout: 60_000 }, async () => {
      const run = await runCli(["audit", ...flags]);
      assert.equal(run.code, 0, run.stderr);
      assert.match(run.stdout, /audited 12 objects, .*: 0 mismatched, 0 missing/);
    });

    it("finds a flipped byte and a missing file, exit code 1, and records the run", {
      timeout: 60_000,
    }, async () => {
      const [flippedPid, flippedBytes] = [...objects][0] as [string, Buffer];
      const [missingPid, missingBytes] = [...objects][5] as [string, Buffer];
      const flippedFile = objectFile(node.dataDir, flippedBytes);
      const damaged = Buffer.from(await readFile(flippedFile));
      damaged[2_000_000] = (damaged[2_000_000] as number) ^ 0x01;
      await writeFile(flippedFile, damaged);
      const missingFile = objectFile(node.dataDir, missingBytes);
      await rename(missingFile, `${missingFile}.away`);

      const report = path.join(node.dataDir, "audit-report.json");
      const run = await runCli(["audit", ...flags, "--report", report]);
      assert.equal(run.code, 1, run.stderr);
      assert.match(run.stdout, new RegExp(`MISMATCH ${flippedPid}: SHA-256 of the stored bytes is`));
      assert.match(run.stdout, new RegExp(`MISSING ${missingPid}: the stored bytes are absent`));
      assert.match(run.stdout, /audited 12 objects, .*: 1 mismatched, 1 missing/);
      const written = JSON.parse(await readFile(report, "utf8")) as { findings: { pid: string }[] };
      assert.deepEqual(written.findings.map((f) => f.pid).sort(), [flippedPid, missingPid].sort());

      const latest = await node.node.ctx.db.audit.latest();
      assert.equal(latest?.objects, 12);
      assert.equal(latest?.mismatches, 1);
      assert.equal(latest?.missing, 1);
      assert.deepEqual(latest?.findings.map((f) => f.kind).sort(), ["digest", "missing"]);

      // What an operator alerts on and looks at: the metrics and the status page show the run (made by the
      // command's own process on PostgreSQL, by the node over its socket on SQLite), read from the database.
      const auth = { authorization: `Bearer ${await node.token(ADMIN)}` };
      const metrics = await (await fetch(`${node.baseUrl}/metrics`, { headers: auth })).text();
      assert.match(metrics, /^d1node_audit_fixity_last_objects\{result="audited"\} 12$/m);
      assert.match(metrics, /^d1node_audit_fixity_last_objects\{result="mismatched"\} 1$/m);
      assert.match(metrics, /^d1node_audit_fixity_last_objects\{result="missing"\} 1$/m);
      const finished = /^d1node_audit_fixity_last_finished_timestamp_seconds (\S+)$/m.exec(metrics);
      assert.ok(finished, metrics);
      assert.ok(Math.abs(Number(finished[1]) * 1000 - Date.now()) < 60_000);
      const status = await (await fetch(`${node.baseUrl}/status`, { headers: auth })).text();
      assert.doesNotMatch(status, /No audit has run/);
      assert.match(status, /<td id="fixity-mismatched" class="bad">1<\/td>/);
      assert.match(status, /<td id="fixity-missing" class="bad">1<\/td>/);
      assert.ok(status.includes(`MISMATCH ${flippedPid}: SHA-256 of the stored bytes is`));
      assert.ok(status.includes(`MISSING ${missingPid}: the stored bytes are absent`));

      await writeFile(flippedFile, flippedBytes);
      await rename(`${missingFile}.away`, missingFile);
      const again = await runCli(["audit", ...flags, "--rate", "100"]);
      assert.equal(again.code, 0, again.stderr);
      assert.equal((await node.node.ctx.db.audit.latest())?.mismatches, 0);
    });

    it("says what is wrong with --rate, on one line", async () => {
      const run = await runCli(["audit", ...flags, "--rate", "fast"]);
      assert.equal(run.code, 2);
      assert.equal(run.stderr, "d1node audit: --rate must be a positive number of MiB/s\n");
    });
  });
}
