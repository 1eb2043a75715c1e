/**
 * CNRegister on a real CN, both dialects: a registered node stays pending (not listed, not found) until an
 * administrator approves it with `d1node node approve`; duplicates and bad ids are refused; updateNodeCapabilities
 * keeps the identifier and type and drops services missing from the new document; resolve points at approved
 * nodes holding completed replicas (DOIs like any PID); synchronize queues a task for a registered Member Node.
 */
import assert from "node:assert/strict";
import { execFile, spawnSync } from "node:child_process";
import { before, describe, it } from "node:test";
import { fileURLToPath } from "node:url";
import { type Caller, call, checkedError, enc, form, okXml } from "../../helpers/clients/client.ts";
import { sysmetaXml, uniquePid } from "../../helpers/data/sysmeta.ts";
import { ADMIN, testDialects, withTestNode } from "../../helpers/nodes/node.ts";
import { validateXml } from "../../helpers/validation/xmllint.ts";

const BIN = fileURLToPath(new URL("../../../bin/d1node.js", import.meta.url));
const MN_SUBJECT = "CN=urn:node:MNA,DC=dataone,DC=org";

function nodeXml(id: string, baseUrl: string, services: string[], name = "Member Node A"): string {
  const svc = services.map((s) => `<service name="${s}" version="v2" available="true"/>`).join("");
  return `<?xml version="1.0" encoding="UTF-8"?><d1:node xmlns:d1="http://ns.dataone.org/service/types/v2.0" replicate="false" synchronize="true" type="mn" state="up"><identifier>${id}</identifier><name>${name}</name><description>A test node</description><baseURL>${baseUrl}</baseURL><services>${svc}</services><synchronization><schedule hour="*" mday="*" min="0/3" mon="*" sec="0" wday="?" year="*"/></synchronization><subject>${MN_SUBJECT}</subject><contactSubject>${MN_SUBJECT}</contactSubject></d1:node>`;
}

for (const dialect of testDialects()) {
  describe(`CN node registry (${dialect})`, () => {
    const node = withTestNode(dialect, { role: "cn", nodeId: "urn:node:TESTCN" });
    let admin: Caller;
    let mn: Caller;
    let other: Caller;
    before(async () => {
      admin = { baseUrl: node.baseUrl, token: await node.token(ADMIN) };
      mn = { baseUrl: node.baseUrl, token: await node.token(MN_SUBJECT) };
      other = { baseUrl: node.baseUrl, token: await node.token("CN=someone else,DC=org") };
    });

    const register = (c: Caller, xml: string) => call(c, "POST", "/node", { body: form({ node: { xml } }) });

    it("getCapabilities and listNodes describe this CN", async () => {
      const self = await okXml(await call(admin, "GET", "/"));
      assert.match(self, /type="cn"/);
      const list = await okXml(await call(admin, "GET", "/node"));
      assert.match(list, /<identifier>urn:node:TESTCN<\/identifier>/);
      await okXml(await call(admin, "GET", "/formats"));
      await okXml(await call(admin, "GET", `/formats/${enc("eml://ecoinformatics.org/eml-2.1.1")}`));
      await okXml(await call(admin, "GET", "/checksum"));
      assert.match(await okXml(await call(admin, "GET", "/query")), /<queryEngine>solr<\/queryEngine>/);
      await okXml(await call(admin, "GET", "/query/solr"));
      const engine = await checkedError(await call(admin, "GET", "/query/nosuch"));
      assert.deepEqual([engine.name, engine.detailCode], ["NotFound", "4414"]);
      await okXml(await call(admin, "GET", "/search/solr/*:*"));
    });

    it("register: pending until approved; duplicates and bad ids refused", async () => {
      const xml = nodeXml("urn:node:MNA", "https://mna.example.org/mn", ["MNCore", "MNRead"]);
      assert.match(await okXml(await register(mn, xml)), /urn:node:MNA/);
      assert.doesNotMatch(await okXml(await call(admin, "GET", "/node")), /urn:node:MNA/);
      assert.equal((await checkedError(await call(admin, "GET", "/node/urn:node:MNA"))).name, "NotFound");
      const again = await checkedError(await register(mn, xml));
      assert.deepEqual([again.name, again.detailCode], ["IdentifierNotUnique", "4844"]);
      const sameUrl = nodeXml("urn:node:MNB", "https://mna.example.org/mn", ["MNCore"]);
      assert.equal((await checkedError(await register(mn, sameUrl))).name, "IdentifierNotUnique");
      const badId = nodeXml("urn:node:X", "https://x.example.org/mn", ["MNCore"]);
      assert.deepEqual(Object.values(await checkedError(await register(mn, badId))).slice(1, 3), [
        "InvalidRequest",
        "4843",
      ]);
      const badSchedule = nodeXml("urn:node:MNS", "https://s.example.org/mn", ["MNCore"]).replace(
        'sec="0"',
        'sec="every second"',
      );
      const schedule = await checkedError(await register(mn, badSchedule));
      assert.deepEqual([schedule.name, schedule.detailCode], ["InvalidRequest", "4843"]);
      const anonymous = await checkedError(await register({ baseUrl: node.baseUrl }, sameUrl));
      assert.equal(anonymous.name, "NotAuthorized");
    });

    it("an administrator approves with `d1node node approve`; the node is then listed", async () => {
      if (dialect === "postgres") {
        const url = node.node.ctx.config.databaseUrl as string;
        const run = spawnSync(process.execPath, [
          BIN,
          "node",
          "approve",
          "urn:node:MNA",
          "--database-url",
          url,
        ]);
        assert.equal(run.status, 0, run.stderr.toString());
        assert.match(run.stdout.toString(), /approved urn:node:MNA/);
        const missing = spawnSync(process.execPath, [
          BIN,
          "node",
          "approve",
          "urn:node:NOPE",
          "--database-url",
          url,
        ]);
        assert.equal(missing.status, 1);
      } else {
        // The embedded database is locked by the running node: the command asks the running CN instead.
        const locked = spawnSync(process.execPath, [
          BIN,
          "node",
          "approve",
          "urn:node:MNA",
          "-d",
          node.dataDir,
        ]);
        assert.equal(locked.status, 2);
        assert.match(locked.stderr.toString(), /^d1node node: .*--cn/);
        const token = await node.token(ADMIN, 600);
        // Not spawnSync: the CN answering runs in this process.
        const cli = (id: string) =>
          new Promise<{ status: number | null; stdout: string; stderr: string }>((resolve) => {
            const args = [BIN, "node", "approve", id, "--cn", node.baseUrl, "--token", token];
            const child = execFile(process.execPath, args, (_error, stdout, stderr) =>
              resolve({ status: child.exitCode, stdout, stderr }),
            );
          });
        const run = await cli("urn:node:MNA");
        assert.equal(run.status, 0, run.stderr);
        assert.match(run.stdout, /approved urn:node:MNA/);
        const missing = await cli("urn:node:NOPE");
        assert.equal(missing.status, 1);
        assert.match(missing.stderr, /NotFound/);
      }
      assert.match(await okXml(await call(admin, "GET", "/node")), /urn:node:MNA/);
      assert.match(await okXml(await call(admin, "GET", "/node/urn:node:MNA")), /<baseURL>https:\/\/mna/);
    });

    it("updateNodeCapabilities: own subject only; identifier and type kept; missing services removed", async () => {
      const next = nodeXml("urn:node:MNA", "https://mna.example.org/mn", ["MNCore"], "Renamed A");
      const put = (c: Caller) =>
        call(c, "PUT", "/node/urn:node:MNA", { body: form({ node: { xml: next } }) });
      const denied = await checkedError(await put(other));
      assert.deepEqual([denied.name, denied.detailCode], ["NotAuthorized", "4821"]);
      assert.equal((await put(mn)).status, 200);
      const stored = await okXml(await call(admin, "GET", "/node/urn:node:MNA"));
      assert.match(stored, /Renamed A/);
      assert.doesNotMatch(stored, /MNRead/);
      const wrongId = await checkedError(
        await call(mn, "PUT", "/node/urn:node:MNZ", { body: form({ node: { xml: next } }) }),
      );
      assert.equal(wrongId.name, "NotFound");
    });

    it("resolve: 303 to the approved node holding a completed replica; SIDs resolve to the head", async () => {
      const pid = uniquePid("reg");
      const sid = uniquePid("sid");
      const extra =
        "<authoritativeMemberNode>urn:node:MNA</authoritativeMemberNode><replica><replicaMemberNode>urn:node:MNA" +
        "</replicaMemberNode><replicationStatus>completed</replicationStatus><replicaVerified>2026-01-01T00:00:00Z" +
        "</replicaVerified></replica>";
      const sysmeta = sysmetaXml(pid, Buffer.from("remote"), { readers: ["public"], seriesId: sid, extra });
      const registered = await call(admin, "POST", "/meta", {
        body: form({ pid, sysmeta: { xml: sysmeta } }),
      });
      assert.equal((await okXml(registered)).includes(pid), true);
      for (const id of [pid, sid]) {
        const response = await call(admin, "GET", `/resolve/${enc(id)}`, { redirect: "manual" });
        assert.equal(response.status, 303);
        const body = await response.text();
        await validateXml(body);
        const location = `https://mna.example.org/mn/v2/object/${encodeURIComponent(pid)}`;
        assert.equal(response.headers.get("location"), location);
        assert.match(body, /<nodeIdentifier>urn:node:MNA<\/nodeIdentifier>/);
      }
      const bytes = await checkedError(await call(admin, "GET", `/object/${enc(pid)}`));
      assert.deepEqual([bytes.name, bytes.detailCode], ["NotFound", "1020"]);
      const listed = await okXml(await call(admin, "GET", "/object?nodeId=urn:node:MNA"));
      assert.match(listed, new RegExp(pid));
      assert.doesNotMatch(
        await okXml(await call(admin, "GET", "/object?nodeId=urn:node:TESTCN")),
        new RegExp(pid),
      );
    });

    it("resolve: a DOI resolves like any PID, its '/' encoded or not", async () => {
      const doi = `doi:10.5072/FK2${uniquePid("r")
        .replace(/[^A-Za-z0-9]/g, "")
        .toUpperCase()}`;
      const extra =
        "<authoritativeMemberNode>urn:node:MNA</authoritativeMemberNode><replica><replicaMemberNode>urn:node:MNA" +
        "</replicaMemberNode><replicationStatus>completed</replicationStatus><replicaVerified>2026-01-01T00:00:00Z" +
        "</replicaVerified></replica>";
      const sysmeta = sysmetaXml(doi, Buffer.from("remote"), { readers: ["public"], extra });
      await okXml(
        await call(admin, "POST", "/meta", { body: form({ pid: doi, sysmeta: { xml: sysmeta } }) }),
      );
      for (const path of [`/resolve/${enc(doi)}`, `/resolve/${doi}`]) {
        const response = await call(admin, "GET", path, { redirect: "manual" });
        assert.equal(response.status, 303, path);
        const body = await response.text();
        await validateXml(body);
        assert.match(body, new RegExp(`<identifier>${doi.replace(/\./g, "\\.")}</identifier>`));
        assert.equal(
          response.headers.get("location"),
          `https://mna.example.org/mn/v2/object/${encodeURIComponent(doi)}`,
        );
      }
    });

    it("synchronize: a registered Member Node's request is queued; others are refused", async () => {
      const pid = uniquePid("sync");
      assert.equal((await call(mn, "POST", "/synchronize", { body: form({ pid }) })).status, 200);
      const tasks = await node.node.ctx.db.cn.syncTasks();
      assert.deepEqual(tasks.at(-1), { pid, nodeId: "urn:node:MNA", requestedBy: MN_SUBJECT });
      const refused = await checkedError(await call(other, "POST", "/synchronize", { body: form({ pid }) }));
      assert.deepEqual([refused.name, refused.detailCode], ["NotAuthorized", "4962"]);
    });
  });
}
