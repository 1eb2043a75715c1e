/**
 * Creates and updates racing each other are indexed together after their commits (src/search/indexing/index-batches.ts),
 * and each caller still finds its own write in search as soon as its call returns: a new object, and the
 * obsoletedBy an update gave the version it replaced.
 */
import assert from "node:assert/strict";
import { before, describe, it } from "node:test";
import { type Caller, call, create, okXml, update } from "../../helpers/clients/client.ts";
import { uniquePid } from "../../helpers/data/sysmeta.ts";
import { ADMIN, testDialects, withTestNode } from "../../helpers/nodes/node.ts";

const WRITERS = 12;

for (const dialect of testDialects()) {
  describe(`concurrent creates and search (${dialect})`, () => {
    const node = withTestNode(dialect);
    let admin: Caller;

    before(async () => {
      admin = { baseUrl: node.baseUrl, token: await node.token(ADMIN) };
    });

    /** The search documents of `q`: id and obsoletedBy. */
    const search = async (q: string) => {
      const params = new URLSearchParams({ q, fl: "id,obsoletedBy", rows: "100", wt: "json" });
      const response = await call(admin, "GET", `/query/solr/?${params}`);
      const body = await response.text();
      assert.equal(response.status, 200, body);
      return (JSON.parse(body) as { response: { docs: { id: string; obsoletedBy?: string }[] } }).response
        .docs;
    };

    it("each racing write is searchable when its call returns", async () => {
      const tag = uniquePid("race-index");
      const old = `${tag}-old`;
      await okXml(await create(admin, old, Buffer.from("old\n")));
      const writes = Array.from({ length: WRITERS }, async (_, i) => {
        const pid = `${tag}-${i}`;
        if (i === 0) await okXml(await update(admin, old, pid, Buffer.from("new\n")));
        else await okXml(await create(admin, pid, Buffer.from(`object ${i}\n`)));
        const docs = await search(`id:"${pid}"`);
        assert.deepEqual(
          docs.map((d) => d.id),
          [pid],
          `${pid} is found right after its call`,
        );
        if (i === 0) assert.equal((await search(`id:"${old}"`))[0]?.obsoletedBy, pid);
      });
      await Promise.all(writes);
      assert.equal((await search(`id:${tag}*`)).length, WRITERS + 1);
    });
  });
}
