/** MNCore and MNRead over a real listening node: headers, documents (validated against the XSDs), errors. */
import assert from "node:assert/strict";
import { before, describe, it } from "node:test";
import { type Caller, call, create, enc, errorOf } from "../../helpers/clients/client.ts";
import { uniquePid } from "../../helpers/data/sysmeta.ts";
import { ADMIN, testDialects, withTestNode } from "../../helpers/nodes/node.ts";
import { validateXml } from "../../helpers/validation/xmllint.ts";

for (const dialect of testDialects()) {
  describe(`MNCore and MNRead (${dialect})`, () => {
    const node = withTestNode(dialect);
    let admin: Caller;
    let anon: Caller;
    const pid = uniquePid("read");
    const bytes = Buffer.from("a,b\n1,2\n");
    before(async () => {
      admin = { baseUrl: node.baseUrl, token: await node.token(ADMIN) };
      anon = { baseUrl: node.baseUrl };
      const response = await create(admin, pid, bytes, { fileName: "table ü.csv" });
      assert.equal(response.status, 200, await response.text());
    });

    it("ping answers 200 with a Date header and no caching", async () => {
      const response = await call(anon, "GET", "/monitor/ping");
      assert.equal(response.status, 200);
      const date = Date.parse(response.headers.get("date") ?? "");
      assert.ok(Math.abs(date - Date.now()) < 60_000);
      assert.match(response.headers.get("cache-control") ?? "", /no-cache/);
      assert.ok(response.headers.get("expires"));
    });

    for (const version of ["v1", "v2"] as const) {
      it(`getCapabilities (${version}) at /node and / is a valid Node document`, async () => {
        for (const path of ["/node", "/", ""]) {
          const response = await call({ ...anon, version }, "GET", path);
          assert.equal(response.status, 200);
          assert.match(response.headers.get("content-type") ?? "", /^text\/xml/);
          const xml = await response.text();
          await validateXml(xml);
          assert.match(xml, /<identifier>urn:node:TESTMN<\/identifier>/);
          assert.match(xml, /name="MNStorage" version="v2"/);
        }
      });

      it(`getSystemMetadata (${version}) validates and carries node-set fields`, async () => {
        const response = await call({ ...anon, version }, "GET", `/meta/${enc(pid)}`);
        const xml = await response.text();
        assert.equal(response.status, 200, xml);
        await validateXml(xml);
        assert.match(xml, /<serialVersion>1<\/serialVersion>/);
        assert.match(xml, /<authoritativeMemberNode>urn:node:TESTMN<\/authoritativeMemberNode>/);
        assert.match(xml, new RegExp(`<submitter>${ADMIN}</submitter>`));
        if (version === "v1") assert.doesNotMatch(xml, /fileName/);
        else assert.match(xml, /<fileName>table ü.csv<\/fileName>/);
      });

      it(`listObjects (${version}) validates; bad parameters are InvalidRequest`, async () => {
        const response = await call({ ...anon, version }, "GET", "/object?count=5");
        const xml = await response.text();
        await validateXml(xml);
        for (const query of [
          "count=-1",
          "start=-3",
          "count=abc",
          "fromDate=yesterday",
          "replicaStatus=maybe",
        ]) {
          const bad = await errorOf(await call({ ...anon, version }, "GET", `/object?${query}`));
          assert.equal(bad.name, "InvalidRequest", query);
          assert.equal(bad.detailCode, "1540");
          await validateXml(bad.body);
        }
      });
    }

    it("get streams the bytes with type, disposition and Last-Modified", async () => {
      const response = await call(anon, "GET", `/object/${enc(pid)}`);
      assert.equal(response.status, 200);
      assert.deepEqual(Buffer.from(await response.arrayBuffer()), bytes);
      assert.equal(response.headers.get("content-type"), "text/csv");
      assert.match(
        response.headers.get("content-disposition") ?? "",
        /filename\*=UTF-8''table%20%C3%BC\.csv/,
      );
      assert.ok(response.headers.get("last-modified"));
    });

    it("a 0-byte object round-trips through create, get and describe", async () => {
      const empty = uniquePid("empty");
      assert.equal((await create(admin, empty, Buffer.alloc(0))).status, 200);
      const response = await call(anon, "GET", `/object/${enc(empty)}`);
      assert.equal(response.status, 200);
      assert.equal((await response.arrayBuffer()).byteLength, 0);
      const head = await call(anon, "HEAD", `/object/${enc(empty)}`);
      assert.equal(head.headers.get("content-length"), "0");
      assert.equal(head.headers.get("dataone-checksum"), "SHA-1,da39a3ee5e6b4b0d3255bfef95601890afd80709");
    });

    it("describe sends the DataONE headers, and NotFound as headers", async () => {
      const response = await call(anon, "HEAD", `/object/${enc(pid)}`);
      assert.equal(response.status, 200);
      assert.equal(response.headers.get("content-length"), String(bytes.length));
      assert.match(response.headers.get("dataone-checksum") ?? "", /^SHA-1,[0-9a-f]{40}$/);
      assert.equal(response.headers.get("dataone-formatid"), "text/csv");
      assert.equal(response.headers.get("dataone-objectformat"), "text/csv");
      assert.equal(response.headers.get("dataone-serialversion"), "1");
      const missing = await call(anon, "HEAD", "/object/no-such-object");
      assert.equal(missing.status, 404);
      assert.equal(missing.headers.get("dataone-exception-name"), "NotFound");
      assert.equal(missing.headers.get("dataone-exception-detailcode"), "1380");
      assert.equal(missing.headers.get("dataone-exception-pid"), "no-such-object");
    });

    it("getChecksum answers MD5, SHA-1, SHA-256 and names the supported ones otherwise", async () => {
      for (const algorithm of ["MD5", "SHA-1", "SHA-256"]) {
        const response = await call(anon, "GET", `/checksum/${enc(pid)}?checksumAlgorithm=${algorithm}`);
        const xml = await response.text();
        await validateXml(xml);
        assert.match(xml, new RegExp(`algorithm="${algorithm}"`));
      }
      const bad = await errorOf(await call(anon, "GET", `/checksum/${enc(pid)}?checksumAlgorithm=CRC32`));
      assert.equal(bad.name, "InvalidRequest");
      assert.equal(bad.detailCode, "1402");
      assert.match(bad.body, /MD5, SHA-1, SHA-256/);
    });

    it("NotFound errors carry the operation's detail code and validate", async () => {
      const cases: [string, string][] = [
        ["/object/missing-x", "1020"],
        ["/meta/missing-x", "1060"],
        ["/checksum/missing-x", "1420"],
      ];
      for (const [path, code] of cases) {
        const error = await errorOf(await call(anon, "GET", path));
        assert.equal(error.status, 404);
        assert.equal(error.detailCode, code, path);
        assert.match(error.body, /resolve/);
        await validateXml(error.body);
      }
    });

    it("getLogRecords is for CNs and administrators, and lists create and read events", async () => {
      const refused = await errorOf(await call(anon, "GET", "/log"));
      assert.equal(refused.name, "NotAuthorized");
      assert.equal(refused.detailCode, "1460");
      await call(anon, "GET", `/object/${enc(pid)}`);
      for (const version of ["v1", "v2"] as const) {
        const filter = version === "v2" ? "idFilter" : "pidFilter";
        const response = await call(
          { ...admin, version },
          "GET",
          `/log?${filter}=${encodeURIComponent(pid)}`,
        );
        const xml = await response.text();
        assert.equal(response.status, 200, xml);
        await validateXml(xml);
        assert.match(xml, /<event>create<\/event>/);
        assert.match(xml, /<event>read<\/event>/);
      }
      const bad = await errorOf(await call(admin, "GET", "/log?fromDate=2026-02-01&toDate=2026-01-01"));
      assert.equal(bad.name, "InvalidRequest");
    });

    it("isAuthorized: 200 when allowed, NotAuthorized when not, InvalidRequest for a bad action", async () => {
      assert.equal((await call(anon, "GET", `/isAuthorized/${enc(pid)}?action=read`)).status, 200);
      const denied = await errorOf(await call(anon, "GET", `/isAuthorized/${enc(pid)}?action=write`));
      assert.equal(denied.name, "NotAuthorized");
      assert.equal(denied.detailCode, "1820");
      const bad = await errorOf(await call(anon, "GET", `/isAuthorized/${enc(pid)}?action=destroy`));
      assert.equal(bad.name, "InvalidRequest");
      const missing = await errorOf(await call(anon, "GET", "/isAuthorized/nothing-here?action=read"));
      assert.equal(missing.name, "NotFound");
    });

    it("CORS: an origin not configured is echoed with credentials; its preflight allows Authorization", async () => {
      const response = await call(anon, "GET", `/meta/${enc(pid)}`, {
        headers: { Origin: "https://search.example.org" },
      });
      assert.equal(response.headers.get("access-control-allow-origin"), "https://search.example.org");
      assert.equal(response.headers.get("access-control-allow-credentials"), "true");
      const preflight = await call(anon, "OPTIONS", `/object/${enc(pid)}`, {
        headers: {
          Origin: "https://search.example.org",
          "Access-Control-Request-Method": "GET",
          "Access-Control-Request-Headers": "authorization",
        },
      });
      assert.equal(preflight.status, 204);
      assert.match(preflight.headers.get("access-control-allow-headers") ?? "", /authorization/i);
    });

    it("an unknown operation is NotImplemented; a bad token is InvalidToken", async () => {
      const unknown = await errorOf(await call(anon, "GET", "/nosuchthing"));
      assert.equal(unknown.name, "NotImplemented");
      const forged = await errorOf(await call({ ...anon, token: "not.a.token" }, "GET", `/meta/${enc(pid)}`));
      assert.equal(forged.name, "InvalidToken");
      assert.equal(forged.status, 401);
      const expired = await errorOf(
        await call({ ...anon, token: await node.token(ADMIN, -10) }, "GET", `/meta/${enc(pid)}`),
      );
      assert.equal(expired.name, "InvalidToken");
    });
  });
}
