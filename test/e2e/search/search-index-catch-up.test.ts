/**
 * The search index at start-up and on failure, both dialects, on real nodes. Objects stored without a document
 * (more than one batch of them, as a crash or `d1node load` leaves) are all indexed by the catch-up the node runs
 * in the background once started (a stopped catch-up leaves the rest for the next start); an
 * object the index refuses (a database trigger here) is logged through the node's own logger with its PID and
 * the error, in the start-up catch-up and on a write alike, and never in another node's log in the same process.
 * With `indexCatchUp` off, a started node leaves them without a document.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { sql } from "kysely";
import type { Database } from "../../../src/db/types.ts";
import { INDEX_BATCH, startIndexCatchUp } from "../../../src/search/indexing/reindex.ts";
import { type Caller, call, create } from "../../helpers/clients/client.ts";
import { uniquePid } from "../../helpers/data/sysmeta.ts";
import { ADMIN, startTestNode, type TestNode, testDialects } from "../../helpers/nodes/node.ts";
import { fillMemberNode } from "../../helpers/nodes/worker-process.ts";

const PLAIN = INDEX_BATCH * 2 + 50;

/** The node's log lines, parsed (pino writes one JSON object per line). */
function logCapture() {
  const lines: Record<string, unknown>[] = [];
  return { lines, logDestination: { write: (line: string) => void lines.push(JSON.parse(line)) } };
}

/** Make every index write of a PID starting with `refused-` fail, as a broken index would. */
async function refuseIndexing(db: Database): Promise<void> {
  if (db.dialect === "sqlite") {
    await sql`create trigger refuse_index before insert on search_docs when new.pid like 'refused-%'
      begin select raise(abort, 'index refused'); end`.execute(db.kysely);
    return;
  }
  await sql`create function refuse_index() returns trigger language plpgsql as
    $$ begin raise exception 'index refused'; end $$`.execute(db.kysely);
  await sql`create trigger refuse_index before insert on search_docs for each row
    when (new.pid like 'refused-%') execute function refuse_index()`.execute(db.kysely);
}

const failures = (lines: Record<string, unknown>[]) =>
  lines
    .filter((line) => line.level === 50)
    .map((line) => [line.identifier, (line.err as { message?: string } | undefined)?.message]);

for (const dialect of testDialects()) {
  describe(`search index catch-up and failures (${dialect})`, () => {
    const tag = uniquePid("cu").replace(/[^a-z0-9]/gi, "");
    let first: TestNode;
    let node: TestNode;
    let other: TestNode;
    const log = logCapture();
    const otherLog = logCapture();
    let admin: Caller;
    let refused: string[];

    before(async () => {
      first = await startTestNode(dialect);
      await refuseIndexing(first.node.ctx.db);
      // Stored without documents, as the start-up catch-up finds them.
      await fillMemberNode(first.node, `${tag}-`, PLAIN);
      refused = await fillMemberNode(first.node, `refused-${tag}-`, 2);
      await first.node.close();
      const databaseUrl = first.node.ctx.config.databaseUrl;
      node = await startTestNode(
        dialect,
        { dataDir: first.dataDir, ...(databaseUrl ? { databaseUrl } : {}) },
        { logLevel: "info", logDestination: log.logDestination },
      );
      admin = { baseUrl: node.baseUrl, token: await node.token(ADMIN) };
      other = await startTestNode(dialect, {}, { logLevel: "info", logDestination: otherLog.logDestination });
      await refuseIndexing(other.node.ctx.db);
    });
    after(async () => {
      await other?.close();
      await node?.close();
      await first?.close();
    });

    it("indexes every object without a document in the background, in batches; refused ones are logged", async () => {
      assert.equal(await node.node.searchCaughtUp, PLAIN);
      const response = await call(admin, "GET", `/query/solr/?q=id:${tag}*&rows=0&wt=json`);
      const body = (await response.json()) as { response: { numFound: number } };
      assert.equal(body.response.numFound, PLAIN);
      const done = log.lines.find((line) => line.msg === "search index: objects without a document indexed");
      assert.deepEqual([done?.indexed, done?.failed], [PLAIN, 2]);
      assert.deepEqual(
        failures(log.lines),
        refused.map((pid) => [pid, "index refused"]),
      );
      const missing = await node.node.ctx.db.kysely
        .selectFrom("search_docs")
        .select("pid")
        .where("pid", "in", refused)
        .execute();
      assert.deepEqual(missing, []);
    });

    it("a stopped catch-up ends after the page it is writing and leaves the rest without a document", async () => {
      await other.node.searchCaughtUp;
      await fillMemberNode(other.node, `${tag}-stopped-`, PLAIN);
      const catchUp = startIndexCatchUp(other.node.ctx);
      await catchUp.stop();
      const written = await catchUp.done;
      assert.ok(written <= INDEX_BATCH, `${written} documents written after stop()`);
      const indexed = await other.node.ctx.db.kysely
        .selectFrom("search_docs")
        .select((eb) => eb.fn.countAll<number>().as("n"))
        .where("pid", "like", `${tag}-stopped-%`)
        .executeTakeFirstOrThrow();
      assert.equal(Number(indexed.n), written);
    });

    it("a write whose indexing fails is logged by its own node only, with the PID and the error", async () => {
      const before = failures(log.lines).length;
      const pid = `refused-${tag}-created`;
      assert.equal((await create(admin, pid, Buffer.from("a,b\n"), { formatId: "text/csv" })).status, 200);
      assert.deepEqual(failures(log.lines).slice(before), [[pid, "index refused"]]);
      const errors = log.lines.filter((line) => line.identifier === pid);
      assert.equal(errors[0]?.msg, `search index: "${pid}" could not be indexed`);
      assert.deepEqual(failures(otherLog.lines), []);
      const otherAdmin = { baseUrl: other.baseUrl, token: await other.token(ADMIN) };
      const otherPid = `refused-${tag}-other`;
      assert.equal(
        (await create(otherAdmin, otherPid, Buffer.from("c\n"), { formatId: "text/csv" })).status,
        200,
      );
      assert.deepEqual(failures(otherLog.lines), [[otherPid, "index refused"]]);
      assert.deepEqual(failures(log.lines).slice(before), [[pid, "index refused"]]);
    });
  });

  describe(`indexCatchUp off (${dialect})`, () => {
    it("leaves the objects without a document to `d1node index --missing`", async () => {
      const tag = uniquePid("nocu").replace(/[^a-z0-9]/gi, "");
      const filled = await startTestNode(dialect);
      let later: TestNode | undefined;
      try {
        await filled.node.searchCaughtUp;
        await fillMemberNode(filled.node, `${tag}-`, 20);
        await filled.node.close();
        const databaseUrl = filled.node.ctx.config.databaseUrl;
        later = await startTestNode(dialect, {
          dataDir: filled.dataDir,
          indexCatchUp: false,
          ...(databaseUrl ? { databaseUrl } : {}),
        });
        assert.equal(await later.node.searchCaughtUp, 0);
        const indexed = await later.node.ctx.db.kysely
          .selectFrom("search_docs")
          .select((eb) => eb.fn.countAll<number>().as("n"))
          .where("pid", "like", `${tag}-%`)
          .executeTakeFirstOrThrow();
        assert.equal(Number(indexed.n), 0);
      } finally {
        await later?.close();
        await filled.close();
      }
    });
  });
}
