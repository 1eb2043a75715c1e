/**
 * OAI-PMH resumption tokens are stateless: a harvest goes on with a token from before a restart of the node
 * (SQLite: the same data folder opened again).
 */
import assert from "node:assert/strict";
import { rm } from "node:fs/promises";
import { after, describe, it } from "node:test";
import { bulkLoadObjects } from "../../../src/db/index.ts";
import { storedObject } from "../../helpers/data/sysmeta.ts";
import { startTestNode, type TestNode } from "../../helpers/nodes/node.ts";
import { headersOf, oaiGet, tokenOf } from "../../helpers/validation/oai.ts";

describe("an OAI-PMH harvest across a restart", () => {
  let node: TestNode | undefined;
  let dataDir: string | undefined;
  after(async () => {
    await node?.node.close();
    if (dataDir) await rm(dataDir, { recursive: true, force: true });
  });

  it("continues from a token issued before the restart", async () => {
    node = await startTestNode("sqlite");
    dataDir = node.dataDir;
    const pids = Array.from({ length: 600 }, (_, i) => `restart-${String(i).padStart(3, "0")}`);
    await bulkLoadObjects(
      node.node.ctx.db,
      pids.map((pid, i) => storedObject(pid, {}, i)),
    );
    const first = await oaiGet(node.baseUrl, "verb=ListIdentifiers&metadataPrefix=oai_dc");
    const token = tokenOf(first);
    assert.ok(token);
    assert.match(first, /completeListSize="600" cursor="0"/);

    await node.node.close();
    node = await startTestNode("sqlite", { dataDir });
    const rest = await oaiGet(node.baseUrl, `verb=ListIdentifiers&resumptionToken=${token}`);
    assert.match(rest, /<resumptionToken completeListSize="600" cursor="500"><\/resumptionToken>/);
    const harvested = [...headersOf(first), ...headersOf(rest)].map((h) => h.identifier);
    assert.deepEqual(harvested, pids);
  });
});
