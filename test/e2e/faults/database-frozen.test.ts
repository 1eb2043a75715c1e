/**
 * A PostgreSQL server that stops answering (its postmaster and backends frozen with SIGSTOP): ping answers
 * ServiceFailure within seconds, create answers ServiceFailure after the statement or connect timeout instead of
 * hanging, listObjects and search answer (from memory, or ServiceFailure) rather than hang, and once the server
 * runs again the node serves again.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { type Caller, call, checkedError, create } from "../../helpers/clients/client.ts";
import { uniquePid } from "../../helpers/data/sysmeta.ts";
import { type OwnPostgres, postgresBinaries, startOwnPostgres } from "../../helpers/db/own-postgres.ts";
import { ADMIN, startTestNode, type TestNode } from "../../helpers/nodes/node.ts";
import { eventually } from "../../helpers/time/eventually.ts";

const bin = postgresBinaries();

/** The response and how long it took. */
async function timed(request: Promise<Response>): Promise<{ response: Response; ms: number }> {
  const started = Date.now();
  const response = await request;
  return { response, ms: Date.now() - started };
}

describe("a frozen PostgreSQL server", { skip: bin ? false : "initdb is not installed" }, () => {
  let server: OwnPostgres;
  let node: TestNode;
  let admin: Caller;
  before(async () => {
    server = await startOwnPostgres(bin as string);
    node = await startTestNode("sqlite", {
      databaseUrl: server.url,
      databaseStatementTimeout: 2,
      databaseConnectTimeout: 2,
    });
    admin = { baseUrl: node.baseUrl, token: await node.token(ADMIN) };
  });
  after(async () => {
    server?.signalAll("SIGCONT");
    await node?.close();
    await server?.stop();
  });

  it("fails fast while frozen and serves again once thawed", { timeout: 120_000 }, async (t) => {
    const first = await create(admin, uniquePid("before"), Buffer.from("before the freeze"));
    assert.equal(first.status, 200, await first.text());

    server.signalAll("SIGSTOP");
    try {
      const ping = await timed(call(admin, "GET", "/monitor/ping"));
      const pingError = await checkedError(ping.response);
      assert.equal(pingError.name, "ServiceFailure", pingError.body);
      assert.equal(pingError.detailCode, "2042");

      const pid = uniquePid("frozen");
      const created = await timed(create(admin, pid, Buffer.from("during the freeze")));
      const createError = await checkedError(created.response);
      assert.equal(createError.status, 500);
      assert.equal(createError.name, "ServiceFailure", createError.body);
      assert.equal(createError.detailCode, "1190");

      const listed = await timed(call(admin, "GET", "/object?count=5"));
      await listed.response.arrayBuffer();
      assert.ok([200, 500].includes(listed.response.status), String(listed.response.status));
      const searched = await timed(call(admin, "GET", "/query/solr/?q=*:*&fq=formatId:x-frozen"));
      await searched.response.arrayBuffer();
      assert.ok([200, 500].includes(searched.response.status), String(searched.response.status));
      t.diagnostic(
        `frozen: ping ${ping.ms} ms, create ${created.ms} ms, listObjects ${listed.ms} ms, search ${searched.ms} ms`,
      );
    } finally {
      server.signalAll("SIGCONT");
    }

    await eventually(
      "ping answers 200 again",
      async () => ((await call(admin, "GET", "/monitor/ping")).status === 200 ? true : undefined),
      30_000,
    );
    const pid = uniquePid("after");
    const again = await create(admin, pid, Buffer.from("after the freeze"));
    assert.equal(again.status, 200, await again.text());
    assert.equal((await call(admin, "GET", `/meta/${pid}`)).status, 200);
  });
});
