/**
 * The official DataONE Python client drives a real listening Coordinating Node through every CN check
 * (../shared/interop/cn_check.py) on SQLite and on PostgreSQL: 0 failures. The CN holds one public object
 * (created through the private CNCore.create) and the caller's account, so no read step is skipped for want of
 * something to read, and the query and search steps run against the solr engine.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { call, create, form } from "../../helpers/clients/client.ts";
import { INTEROP_SKIP, runInteropCheck } from "../../helpers/clients/interop.ts";
import { uniquePid } from "../../helpers/data/sysmeta.ts";
import { ADMIN, testDialects, withTestNode } from "../../helpers/nodes/node.ts";

const PERSON = `<?xml version="1.0" encoding="UTF-8"?>
<d1:person xmlns:d1="http://ns.dataone.org/service/types/v1"><subject>${ADMIN.replace(/&/g, "&amp;")}</subject>
<givenName>Test</givenName><familyName>Admin</familyName></d1:person>`;

for (const dialect of testDialects()) {
  describe(`cn_check.py against a ${dialect} CN`, { skip: INTEROP_SKIP }, () => {
    const node = withTestNode(dialect, { role: "cn", nodeId: "urn:node:TESTCN" });

    it("passes every check", async () => {
      const admin = { baseUrl: node.baseUrl, token: await node.token(ADMIN) };
      const created = await create(admin, uniquePid("cn"), Buffer.from("a,b\n1,2\n"), {
        formatId: "text/csv",
        readers: ["public"],
      });
      assert.equal(created.status, 200, await created.text());
      const account = await call(admin, "POST", "/accounts", { body: form({ person: { xml: PERSON } }) });
      assert.equal(account.status, 200, await account.text());

      const run = await runInteropCheck("cn_check.py", [node.baseUrl, "--token", admin.token]);
      const detail = run.failures.join("\n") || run.output.slice(-3000);
      assert.equal(run.failed, 0, detail);
      assert.ok(run.passed >= 20, `only ${run.passed} checks passed\n${detail}`);
      assert.equal(run.exitCode, 0, detail);
      assert.equal(run.skipped, 0, detail);
    });
  });
}
