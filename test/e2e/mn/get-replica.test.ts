/**
 * MNRead.getReplica: only CNs, node administrators and nodes the CN scheduled a replica for
 * (CNReplication.isNodeAuthorized, asked of a CN served by the test) get the bytes; each pull is a replicate event.
 */
import assert from "node:assert/strict";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { after, before, describe, it } from "node:test";
import { type Caller, call, create, enc, errorOf } from "../../helpers/clients/client.ts";
import { uniquePid } from "../../helpers/data/sysmeta.ts";
import { ADMIN, startTestNode, type TestNode } from "../../helpers/nodes/node.ts";

const TARGET_MN = "CN=urn:node:TARGET,DC=dataone,DC=org";
const OTHER_MN = "CN=urn:node:OTHER,DC=dataone,DC=org";

describe("getReplica", () => {
  let cn: Server;
  let node: TestNode;
  let admin: Caller;
  const asked: string[] = [];
  const pid = uniquePid("replica");
  before(async () => {
    cn = createServer((request, response) => {
      const url = new URL(request.url ?? "", "http://cn");
      asked.push(url.pathname);
      const allowed = url.searchParams.get("targetNodeSubject") === TARGET_MN;
      response.writeHead(allowed ? 200 : 401, { "content-type": "text/xml" }).end(allowed ? "" : "<error/>");
    });
    await new Promise<void>((resolve) => cn.listen(0, "127.0.0.1", resolve));
    const { port } = cn.address() as AddressInfo;
    node = await startTestNode("sqlite", { cnBaseUrl: `http://127.0.0.1:${port}/cn` });
    admin = { baseUrl: node.baseUrl, token: await node.token(ADMIN) };
    assert.equal(
      (await create(admin, pid, Buffer.from("replica bytes\n"), { readers: ["CN=someone"] })).status,
      200,
    );
  });
  after(async () => {
    await node.close();
    cn.close();
  });

  it("serves the node the CN scheduled, after asking the CN", async () => {
    const target = { baseUrl: node.baseUrl, token: await node.token(TARGET_MN) };
    const response = await call(target, "GET", `/replica/${enc(pid)}`);
    assert.equal(response.status, 200);
    assert.equal(await response.text(), "replica bytes\n");
    assert.ok(asked.includes(`/cn/v2/replicaAuthorizations/${encodeURIComponent(pid)}`));
  });

  it("refuses other nodes, anonymous callers, and answers NotFound for unknown pids", async () => {
    const other = { baseUrl: node.baseUrl, token: await node.token(OTHER_MN) };
    const refused = await errorOf(await call(other, "GET", `/replica/${enc(pid)}`));
    assert.equal(refused.name, "NotAuthorized");
    assert.equal(refused.detailCode, "2182");
    const anonymous = await errorOf(await call({ baseUrl: node.baseUrl }, "GET", `/replica/${enc(pid)}`));
    assert.equal(anonymous.name, "NotAuthorized");
    const missing = await errorOf(await call(admin, "GET", "/replica/no-such-replica"));
    assert.equal(missing.name, "NotFound");
    assert.equal(missing.detailCode, "2185");
  });

  it("logs each pull as a replicate event", async () => {
    await node.node.ctx.db.events.flush();
    const log = await (
      await call(admin, "GET", `/log?idFilter=${encodeURIComponent(pid)}&event=replicate`)
    ).text();
    assert.match(log, /<event>replicate<\/event>/);
  });
});
