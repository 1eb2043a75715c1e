/**
 * `d1node import` from a hostile source, on SQLite and PostgreSQL: the source speaks only for the objects it gave.
 * A listing that names an object held here (same size and checksum, a newer date) with mallory as its rights
 * holder and public read, a listing whose system metadata is another object's, a new version that would take
 * over a series held here: each is named as a failure and nothing held here changes. An object the import
 * copied, changed at the source since, still gets the source's new record.
 */
import assert from "node:assert/strict";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { parseSystemMetadata } from "../../src/types/index.ts";
import { serializeSystemMetadata } from "../../src/types/xml-documents/sysmeta-xml.ts";
import { type Caller, call, create, enc } from "../helpers/clients/client.ts";
import { createTestPostgresDatabase, type TestPostgres } from "../helpers/db/postgres.ts";
import { ADMIN, startTestNode, type TestNode, testDialects } from "../helpers/nodes/node.ts";
import { type FakeSource, fakeRecord, startFakeSource } from "./fake-source.ts";
import { runImport } from "./import-process.ts";

for (const dialect of testDialects()) {
  describe(`d1node import from a hostile source (${dialect})`, () => {
    let source: FakeSource;
    let dataDir: string;
    let pg: TestPostgres | undefined;
    let target: TestNode | undefined;
    const tag = `trust-${Date.now()}`;
    const privatePid = `${tag}-private`;
    const head = `${tag}-head`;
    const sid = `${tag}-sid`;

    const startTarget = async () => {
      target = await startTestNode("sqlite", {
        dataDir,
        nodeId: "urn:node:TARGET",
        ...(pg ? { databaseUrl: pg.url } : {}),
      });
      return { baseUrl: target.baseUrl, token: await target.token(ADMIN) } as Caller;
    };
    const stopTarget = async () => {
      await target?.node.close();
      target = undefined;
    };
    const sysmetaThere = async (caller: Caller, pid: string) => {
      const response = await call(caller, "GET", `/meta/${enc(pid)}`);
      assert.equal(response.status, 200, pid);
      return parseSystemMetadata(await response.text());
    };
    const importFlags = () => [
      "--from",
      source.baseUrl,
      "-d",
      dataDir,
      ...(pg ? ["--database-url", pg.url] : []),
    ];

    before(async () => {
      dataDir = await mkdtemp(path.join(tmpdir(), "d1node-import-trust-"));
      if (dialect === "postgres") pg = await createTestPostgresDatabase();
      const admin = await startTarget();
      const bytes = Buffer.from("alice's private bytes\n");
      const made = await create(admin, privatePid, bytes, {
        rightsHolder: "CN=alice",
        readers: ["CN=alice"],
      });
      assert.equal(made.status, 200, await made.text());
      const series = await create(admin, head, Buffer.from("head\n"), { seriesId: sid });
      assert.equal(series.status, 200, await series.text());
      const held = await sysmetaThere(admin, privatePid);
      await stopTarget();

      source = await startFakeSource();
      const later = new Date((held.dateSysMetadataModified as Date).getTime() + 5);
      // The held object as the source claims it: mallory's, public, newer.
      const claimed = {
        ...held,
        rightsHolder: "CN=mallory",
        accessPolicy: [{ subjects: ["public"], permissions: ["read" as const, "changePermission" as const] }],
        dateSysMetadataModified: later,
      };
      source.objects.set(privatePid, { sysmeta: claimed, bytes });
      // Listed as a new object, answered with the held object's system metadata.
      const decoy = fakeRecord(`${tag}-decoy`, bytes, later);
      source.objects.set(`${tag}-decoy`, { ...decoy, sysmetaXml: serializeSystemMetadata(claimed, "v2") });
      // A new version of the series held here.
      const hijack = fakeRecord(`${tag}-hijack`, "mallory's head\n", later, {
        obsoletes: head,
        seriesId: sid,
      });
      source.objects.set(`${tag}-hijack`, hijack);
      source.objects.set(`${tag}-fine`, fakeRecord(`${tag}-fine`, "an honest object\n", later));
    });

    after(async () => {
      await stopTarget();
      await source?.close();
      await pg?.drop();
      await rm(dataDir, { recursive: true, force: true });
    });

    it("names each object it never gave as a failure and changes nothing held here", async () => {
      const run = await runImport(importFlags());
      assert.equal(run.code, 1, run.stderr);
      assert.match(run.stdout, /objects copied 1, updated 0, unchanged 0, failed 3/);
      assert.match(
        run.stderr,
        new RegExp(`failed "${privatePid}": NotAuthorized: .*not copied from this source`),
      );
      assert.match(
        run.stderr,
        new RegExp(`failed "${tag}-decoy": InvalidSystemMetadata: .*is that of "${privatePid}"`),
      );
      assert.match(run.stderr, new RegExp(`failed "${tag}-hijack": NotAuthorized: .*would follow "${head}"`));

      const admin = await startTarget();
      const held = await sysmetaThere(admin, privatePid);
      assert.equal(held.rightsHolder, "CN=alice");
      assert.deepEqual(held.accessPolicy, [{ subjects: ["CN=alice"], permissions: ["read"] }]);
      assert.equal((await call({ baseUrl: admin.baseUrl }, "GET", `/meta/${enc(privatePid)}`)).status, 401);
      assert.equal((await sysmetaThere(admin, sid)).identifier, head);
      assert.equal((await call(admin, "GET", `/meta/${enc(`${tag}-hijack`)}`)).status, 404);
      assert.equal((await call(admin, "GET", `/meta/${enc(`${tag}-decoy`)}`)).status, 404);
      assert.equal((await sysmetaThere(admin, `${tag}-fine`)).rightsHolder, "CN=owner");
      await stopTarget();
    });

    it("still takes the source's new record for an object it copied", async () => {
      const fine = source.objects.get(`${tag}-fine`);
      assert.ok(fine);
      const changed = new Date((fine.sysmeta.dateSysMetadataModified as Date).getTime() + 5);
      fine.sysmeta = { ...fine.sysmeta, archived: true, serialVersion: 2, dateSysMetadataModified: changed };
      const run = await runImport([...importFlags(), "--restart"]);
      assert.equal(run.code, 1, run.stderr);
      assert.match(run.stdout, /objects copied 0, updated 1, unchanged 0, failed 3/);
      const admin = await startTarget();
      assert.equal((await sysmetaThere(admin, `${tag}-fine`)).archived, true);
      assert.equal((await sysmetaThere(admin, privatePid)).rightsHolder, "CN=alice");
      await stopTarget();
    });
  });
}
