/**
 * `d1node index` on a real node's data, both dialects (SQLite: the node stopped; PostgreSQL: the node serving
 * meanwhile). The index is damaged: one document deleted, one rewritten with wrong fields, one left for an object
 * that does not exist, a resource map's relations dropped. `--missing` restores the deleted one only; the full
 * rebuild restores everything (package fields included) and removes the stale document; search answers right.
 */
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { readFileSync } from "node:fs";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { sql } from "kysely";
import type { Database } from "../../../src/db/types.ts";
import { openNodeDatabase } from "../../../src/node/open-database.ts";
import { searchUncached } from "../../../src/search/answers/search.ts";
import { SolrParams } from "../../../src/search/query/params.ts";
import { parseSearchRequest } from "../../../src/search/query/parse-request.ts";
import { removeDocument, writeDocument } from "../../../src/search/store/index-store.ts";
import { type Caller, call, create } from "../../helpers/clients/client.ts";
import { RESOURCE_MAP_FORMAT, resourceMapXml } from "../../helpers/data/resource-map.ts";
import { uniquePid } from "../../helpers/data/sysmeta.ts";
import { searchIndexOf } from "../../helpers/db/search-index.ts";
import { ADMIN, startTestNode, type TestNode, testDialects } from "../../helpers/nodes/node.ts";

const BIN = fileURLToPath(new URL("../../../bin/d1node.js", import.meta.url));
const EML = readFileSync(new URL("../../fixtures/search/eml-2.2.0-testdoc.xml", import.meta.url));
const EML_FORMAT = "https://eml.ecoinformatics.org/eml-2.2.0";

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

/** `d1node index ...args`, run to its end. */
async function runIndex(args: string[]): Promise<Run> {
  try {
    const { stdout, stderr } = await promisify(execFile)(process.execPath, [BIN, "index", ...args]);
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code: number; stdout: string; stderr: string };
    return { code: failed.code, stdout: failed.stdout, stderr: failed.stderr };
  }
}

for (const dialect of testDialects()) {
  describe(`d1node index (${dialect})`, () => {
    let node: TestNode;
    let admin: Caller;
    const tag = uniquePid("ix").replace(/[^a-z0-9]/gi, "");
    // The map sorts first: the rebuild indexes it before the objects it names.
    const mapPid = `${tag}-a-map`;
    const emlPid = `${tag}-b-eml`;
    const dataPid = `${tag}-c-data`;
    const ghostPid = `${tag}-d-ghost`;
    let locationFlags: string[];

    /** Work on the node's database through a handle of its own (SQLite: the node is stopped by then). */
    const onDatabase = async (work: (db: Database) => Promise<void>) => {
      const url = node.node.ctx.config.databaseUrl;
      const db = await openNodeDatabase(
        url ? { url } : { sqlitePath: path.join(node.dataDir, "d1node.sqlite") },
      );
      try {
        await work(db);
      } finally {
        await db.close();
      }
    };
    /** Queries over the index, from the index itself. */
    const onIndex = (work: (find: (q: string) => Promise<Record<string, unknown>[]>) => Promise<void>) =>
      onDatabase((db) =>
        work(async (q) => {
          const params = SolrParams.from({ q, fl: "*", sort: "id asc" });
          return (await searchUncached(searchIndexOf(db), parseSearchRequest(params), "all")).docs;
        }),
      );
    const ids = (docs: Record<string, unknown>[]) => docs.map((doc) => doc.id);

    before(async () => {
      node = await startTestNode(dialect);
      admin = { baseUrl: node.baseUrl, token: await node.token(ADMIN) };
      const data = Buffer.from("site,value\na,1\n");
      const map = Buffer.from(resourceMapXml(mapPid, emlPid, [dataPid]));
      assert.equal((await create(admin, emlPid, EML, { formatId: EML_FORMAT })).status, 200);
      assert.equal((await create(admin, dataPid, data, { formatId: "text/csv" })).status, 200);
      assert.equal((await create(admin, mapPid, map, { formatId: RESOURCE_MAP_FORMAT })).status, 200);
      const { databaseUrl: url, store, storeEndpoint, storePathStyle } = node.node.ctx.config;
      // A node on S3 (D1NODE_TEST_STORE=s3): the command is given the same store settings.
      if (store && storePathStyle) process.env.D1NODE_STORE_PATH_STYLE = "true";
      const storeFlags = store
        ? ["--store", store, ...(storeEndpoint ? ["--store-endpoint", storeEndpoint] : [])]
        : [];
      locationFlags = ["--data-dir", node.dataDir, ...(url ? ["--database-url", url] : []), ...storeFlags];
      // The damage: a document gone, one with wrong fields, one of an object that does not exist.
      const db = node.node.ctx.db;
      await removeDocument(db, dataPid);
      await writeDocument(
        db,
        emlPid,
        new Map([
          ["id", [emlPid]],
          ["title", ["Tampered title"]],
        ]),
        new Map(),
      );
      await writeDocument(
        db,
        ghostPid,
        new Map([
          ["id", [ghostPid]],
          ["title", ["Ghost title"]],
        ]),
        new Map(),
      );
      // SQLite: the node holds its database alone, so the command runs once it has stopped.
      if (dialect === "sqlite") await node.node.close();
    });
    after(() => node.close());

    if (dialect === "sqlite") {
      it("cannot run while a node holds the SQLite database: exit code 2, and says why", async () => {
        const other = await startTestNode("sqlite");
        try {
          const run = await runIndex(["--data-dir", other.dataDir]);
          assert.equal(run.code, 2);
          assert.match(
            run.stderr,
            /could not open the database \(a node running on this data folder holds it/,
          );
        } finally {
          await other.close();
        }
      });
    }

    it("--missing indexes only the objects without a document", async () => {
      const run = await runIndex(["--missing", ...locationFlags]);
      assert.equal(run.code, 0, run.stderr);
      assert.equal(run.stdout, "documents written 1, failures 0\n");
      assert.match(run.stderr, /indexed 1 \/ 1, 0 failed/);
      await onIndex(async (find) => {
        const [data] = await find(`id:"${dataPid}"`);
        assert.deepEqual(data?.resourceMap, [mapPid]);
        assert.deepEqual(data?.isDocumentedBy, [emlPid]);
        assert.deepEqual(ids(await find('title:"Tampered title"')), [emlPid]);
        assert.deepEqual(ids(await find(`id:"${ghostPid}"`)), [ghostPid]);
      });
    });

    it("the full rebuild rewrites every document, relations included, and removes stale ones", async () => {
      await onDatabase(async (db) => {
        await db.kysely.deleteFrom("search_relations").execute();
      });
      const run = await runIndex(locationFlags);
      assert.equal(run.code, 0, run.stderr);
      assert.equal(run.stdout, "documents written 3, failures 0, stale documents removed 1\n");
      await onIndex(async (find) => {
        assert.deepEqual(ids(await find('title:"Tampered title"')), []);
        assert.deepEqual(ids(await find(`id:"${ghostPid}"`)), []);
        const [eml] = await find('title:"EML Annotation Example"');
        assert.equal(eml?.id, emlPid);
        assert.deepEqual(eml?.documents, [dataPid]);
        assert.deepEqual(eml?.resourceMap, [mapPid]);
        const [data] = await find(`id:"${dataPid}"`);
        assert.deepEqual(data?.resourceMap, [mapPid]);
        assert.deepEqual(data?.isDocumentedBy, [emlPid]);
      });
    });

    it("a rebuild from an empty index prints a line as each index dropped for it is built again", async () => {
      await onDatabase(async (db) => {
        for (const table of ["search_values", "search_docs", "search_relations"] as const)
          await db.kysely.deleteFrom(table).execute();
        if (db.dialect === "sqlite") await sql`delete from search_terms`.execute(db.kysely);
      });
      const run = await runIndex(locationFlags);
      assert.equal(run.code, 0, run.stderr);
      assert.equal(run.stdout, "documents written 3, failures 0, stale documents removed 0\n");
      const lines = run.stderr.split("\n");
      const start = lines.findIndex((line) => /^building \d+ search indexes$/.test(line));
      assert.ok(start > 0, run.stderr);
      assert.match(lines[start - 1] ?? "", /^indexed 3 \/ 3, 0 failed/);
      const total = Number(/\d+/.exec(lines[start] ?? "")?.[0]);
      const built = lines.slice(start + 1, start + 1 + total);
      assert.deepEqual(
        built.map((line) => /^\w+ built in \d+\.\d s \((\d+) of (\d+)\)$/.exec(line)?.slice(1)),
        built.map((_, i) => [String(i + 1), String(total)]),
      );
      await onIndex(async (find) => {
        assert.equal((await find('title:"EML Annotation Example"'))[0]?.id, emlPid);
      });
    });

    it("the node's search answers from the rebuilt index", async () => {
      if (dialect === "sqlite") {
        // Started again on the same data folder (its own close removes the folder at the end).
        node = await startTestNode("sqlite", { dataDir: node.dataDir });
        admin = { baseUrl: node.baseUrl, token: await node.token(ADMIN) };
      }
      const response = await call(admin, "GET", `/query/solr/?q=id:${tag}*&fl=id,title&sort=id+asc&wt=json`);
      assert.equal(response.status, 200);
      const body = (await response.json()) as { response: { docs: { id: string; title?: string }[] } };
      assert.deepEqual(
        body.response.docs.map((doc) => [doc.id, doc.title]),
        [
          [mapPid, undefined],
          [emlPid, "EML Annotation Example"],
          [dataPid, undefined],
        ],
      );
    });
  });
}
