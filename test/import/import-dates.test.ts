/**
 * `d1node import` from a source that writes microseconds (GMN: "2026-12-05T02:19:01.762874", no zone), on SQLite
 * and PostgreSQL: the copy states the same dateUploaded and dateSysMetadataModified, in getSystemMetadata and in
 * listObjects, and lists in the same order as before.
 */
import assert from "node:assert/strict";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { serializeSystemMetadata } from "../../src/types/xml-documents/sysmeta-xml.ts";
import { type Caller, call } from "../helpers/clients/client.ts";
import { createTestPostgresDatabase, type TestPostgres } from "../helpers/db/postgres.ts";
import { ADMIN, startTestNode, type TestNode, testDialects } from "../helpers/nodes/node.ts";
import { type FakeSource, fakeRecord, startFakeSource } from "./fake-source.ts";
import { runImport } from "./import-process.ts";

const UPLOADED = "2026-01-05T02:19:01.762874";
const MODIFIED = "2026-01-05T02:19:01.762875";

for (const dialect of testDialects()) {
  describe(`d1node import keeps a source's microseconds (${dialect})`, () => {
    let source: FakeSource;
    let dataDir: string;
    let pg: TestPostgres | undefined;
    let target: TestNode | undefined;

    before(async () => {
      dataDir = await mkdtemp(path.join(tmpdir(), "d1node-import-dates-"));
      if (dialect === "postgres") pg = await createTestPostgresDatabase();
      source = await startFakeSource();
      const at = new Date(`${UPLOADED.slice(0, 23)}Z`);
      const precise = fakeRecord("precise", "dated to the microsecond\n", at);
      const xml = serializeSystemMetadata(precise.sysmeta, "v2")
        .replace(/<dateUploaded>[^<]*/, `<dateUploaded>${UPLOADED}`)
        .replace(/<dateSysMetadataModified>[^<]*/, `<dateSysMetadataModified>${MODIFIED}`);
      source.objects.set("precise", { ...precise, sysmetaXml: xml });
      source.objects.set("next", fakeRecord("next", "a millisecond later\n", new Date(at.getTime() + 1)));
    });
    after(async () => {
      await target?.close();
      await source?.close();
      await pg?.drop();
      await rm(dataDir, { recursive: true, force: true });
    });

    it("states the source's dates to the microsecond", async () => {
      const flags = ["--from", source.baseUrl, "-d", dataDir, ...(pg ? ["--database-url", pg.url] : [])];
      const run = await runImport(flags);
      assert.equal(run.code, 0, run.stderr);
      target = await startTestNode("sqlite", { dataDir, ...(pg ? { databaseUrl: pg.url } : {}) });
      const admin: Caller = { baseUrl: target.baseUrl, token: await target.token(ADMIN) };
      const meta = await (await call(admin, "GET", "/meta/precise")).text();
      assert.match(meta, new RegExp(`<dateUploaded>${UPLOADED}Z</dateUploaded>`), meta);
      assert.match(meta, new RegExp(`<dateSysMetadataModified>${MODIFIED}Z</dateSysMetadataModified>`), meta);
      const list = await (await call(admin, "GET", "/object")).text();
      assert.match(list, new RegExp(`${MODIFIED}Z`), list);
      // The list order is unchanged: by milliseconds, then PID.
      assert.ok(list.indexOf("<identifier>precise<") < list.indexOf("<identifier>next<"), list);
      const from = await (await call(admin, "GET", `/object?fromDate=${MODIFIED}`)).text();
      assert.match(from, /<identifier>precise</, from);
    });
  });
}
