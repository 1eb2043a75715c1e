/**
 * `d1node node approve|reject|remove --cn URL` as docs/federation.md runs them on the CN's machine (both
 * databases): with the CN's data folder and no credential named, the command signs a token for the CN itself,
 * whatever administrators `serve` was given; run anywhere else it says so (exit 2) and creates nothing. A
 * rejected or removed node leaves listNodes and the registry.
 */
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { type Caller, call, form, okXml } from "../../helpers/clients/client.ts";
import { BIN } from "../../helpers/nodes/cli.ts";
import { ADMIN, startTestNode, type TestNode, testDialects } from "../../helpers/nodes/node.ts";

const MN_SUBJECT = "CN=urn:node:MNA,DC=dataone,DC=org";
/** Each registered node holds a subject of its own (a node may not hold another's). */
const subjectOf = (id: string) => `CN=${id},DC=dataone,DC=org`;

function nodeXml(id: string, baseUrl: string): string {
  return `<?xml version="1.0" encoding="UTF-8"?><d1:node xmlns:d1="http://ns.dataone.org/service/types/v2.0" replicate="false" synchronize="true" type="mn" state="up"><identifier>${id}</identifier><name>${id}</name><description>A test node</description><baseURL>${baseUrl}</baseURL><services><service name="MNCore" version="v2" available="true"/></services><synchronization><schedule hour="*" mday="*" min="0/3" mon="*" sec="0" wday="?" year="*"/></synchronization><subject>${subjectOf(id)}</subject><contactSubject>${subjectOf(id)}</contactSubject></d1:node>`;
}

/** The real command, asynchronously (the CN answering runs in this process). */
function cli(args: string[], cwd: string) {
  return new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
    const child = execFile(
      process.execPath,
      [BIN, ...args],
      { cwd, env: { ...process.env, D1NODE_DEBUG: "" } },
      (_e, stdout, stderr) => resolve({ code: child.exitCode ?? 1, stdout, stderr }),
    );
  });
}

for (const dialect of testDialects()) {
  describe(`node approve, reject and remove (${dialect})`, () => {
    let cn: TestNode;
    let admin: Caller;
    let mn: Caller;
    let elsewhere: string;
    before(async () => {
      // Administrators given to the CN only (as `serve --admin-subject` does): the commands are not told them.
      cn = await startTestNode(dialect, { role: "cn", nodeId: "urn:node:TESTCN", adminSubjects: [ADMIN] });
      admin = { baseUrl: cn.baseUrl, token: await cn.token(ADMIN) };
      mn = { baseUrl: cn.baseUrl, token: await cn.token(MN_SUBJECT) };
      elsewhere = mkdtempSync(path.join(tmpdir(), "d1node-elsewhere-"));
      for (const id of ["MNA", "MNB", "MNC"]) {
        const xml = nodeXml(`urn:node:${id}`, `https://${id.toLowerCase()}.example.org/mn`);
        const registrant = { baseUrl: cn.baseUrl, token: await cn.token(subjectOf(`urn:node:${id}`)) };
        await okXml(await call(registrant, "POST", "/node", { body: form({ node: { xml } }) }));
      }
    });
    after(async () => {
      await cn.close();
      rmSync(elsewhere, { recursive: true, force: true });
    });
    const listed = async () => okXml(await call(admin, "GET", "/node"));

    it("approve --cn on the CN's data folder needs no administrator named", async () => {
      const run = await cli(
        ["node", "approve", "urn:node:MNA", "--cn", cn.baseUrl, "-d", cn.dataDir],
        elsewhere,
      );
      assert.equal(run.code, 0, run.stderr);
      assert.equal(run.stdout, "approved urn:node:MNA\n");
      assert.match(await listed(), /urn:node:MNA/);
    });

    it("run from another folder, the command says so and creates no data folder", async () => {
      const run = await cli(["node", "approve", "urn:node:MNB", "--cn", cn.baseUrl], elsewhere);
      assert.equal(run.code, 2);
      assert.match(
        run.stderr,
        /^d1node node: .*d1node-data holds no token-signing key: not a node's data folder/,
      );
      assert.equal(run.stderr.trim().split("\n").length, 1);
      assert.equal(existsSync(path.join(elsewhere, "d1node-data")), false);
      const token = await cli(["token", "--subject", ADMIN], elsewhere);
      assert.equal(token.code, 2);
      assert.equal(existsSync(path.join(elsewhere, "d1node-data")), false);
      const offline = await cli(["node", "list"], elsewhere);
      if (dialect === "sqlite") {
        assert.equal(offline.code, 2);
        assert.match(offline.stderr, /holds no node database/);
      }
      assert.equal(existsSync(path.join(elsewhere, "d1node-data")), false);
    });

    it("reject removes a pending registration; an approved node is not rejected", async () => {
      const run = await cli(
        ["node", "reject", "urn:node:MNB", "--cn", cn.baseUrl, "-d", cn.dataDir],
        elsewhere,
      );
      assert.equal(run.code, 0, run.stderr);
      assert.equal(run.stdout, "rejected urn:node:MNB\n");
      const list = await cli(["node", "list", "--cn", cn.baseUrl, "-d", cn.dataDir], elsewhere);
      assert.doesNotMatch(list.stdout, /MNB/);
      assert.match(list.stdout, /urn:node:MNC\tpending/);
      const approved = await cli(
        ["node", "reject", "urn:node:MNA", "--cn", cn.baseUrl, "-d", cn.dataDir],
        elsewhere,
      );
      assert.equal(approved.code, 1);
      assert.match(
        approved.stderr,
        /InvalidRequest: Node "urn:node:MNA" is approved, not pending: remove it instead/,
      );
    });

    it("remove takes an approved node out of listNodes; others' tokens may not", async () => {
      const denied = await call(mn, "DELETE", "/../admin/nodes/urn:node:MNA");
      assert.equal(denied.status, 401);
      const run = await cli(
        ["node", "remove", "urn:node:MNA", "--cn", cn.baseUrl, "-d", cn.dataDir],
        elsewhere,
      );
      assert.equal(run.code, 0, run.stderr);
      assert.equal(run.stdout, "removed urn:node:MNA\n");
      assert.doesNotMatch(await listed(), /urn:node:MNA/);
      const again = await cli(
        ["node", "remove", "urn:node:MNA", "--cn", cn.baseUrl, "-d", cn.dataDir],
        elsewhere,
      );
      assert.equal(again.code, 1);
      assert.match(again.stderr, /NotFound/);
    });

    if (dialect === "postgres") {
      it("without --cn the commands open PostgreSQL directly", async () => {
        const url = cn.node.ctx.config.databaseUrl as string;
        const run = await cli(["node", "remove", "urn:node:MNC", "--database-url", url], elsewhere);
        assert.equal(run.code, 0, run.stderr);
        const list = await cli(["node", "list", "--database-url", url], elsewhere);
        assert.doesNotMatch(list.stdout, /MNC/);
      });
    }
  });
}
