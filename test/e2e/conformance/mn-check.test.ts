/**
 * The official DataONE Python client drives a real listening Member Node through every MN check
 * (../shared/interop/mn_check.py), v1 and v2, on SQLite and on PostgreSQL: 0 failures, 0 skipped.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { INTEROP_SKIP, runInteropCheck } from "../../helpers/clients/interop.ts";
import { ADMIN, testDialects, withTestNode } from "../../helpers/nodes/node.ts";

for (const dialect of testDialects()) {
  describe(`mn_check.py against a ${dialect} node`, { skip: INTEROP_SKIP }, () => {
    const node = withTestNode(dialect);

    it("passes every check, v1 and v2, with none skipped", async () => {
      const run = await runInteropCheck("mn_check.py", [node.baseUrl, "--token", await node.token(ADMIN)]);
      const detail = run.failures.join("\n") || run.output.slice(-3000);
      assert.equal(run.failed, 0, detail);
      assert.equal(run.skipped, 0, detail);
      assert.ok(run.passed >= 100, `only ${run.passed} checks passed\n${detail}`);
      assert.equal(run.exitCode, 0, detail);
    });
  });
}
