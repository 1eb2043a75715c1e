/**
 * "Failures return an exception document" (API text, Errors): every failure on every route, including those
 * the framework meets before a route is chosen, is a DataONE exception document (or DataONE-Exception-*
 * headers on HEAD), checked against dataoneErrors.xsd. Sent through a real listening node.
 */
import assert from "node:assert/strict";
import net from "node:net";
import { after, before, describe, it } from "node:test";
import { type Caller, call, checkedError, create, enc, form } from "../../helpers/clients/client.ts";
import { sysmetaXml, uniquePid } from "../../helpers/data/sysmeta.ts";
import { ADMIN, startTestNode, type TestNode } from "../../helpers/nodes/node.ts";

describe("failures are DataONE exception documents", () => {
  let node: TestNode;
  let admin: Caller;
  before(async () => {
    node = await startTestNode("sqlite");
    admin = { baseUrl: node.baseUrl, token: await node.token(ADMIN) };
  });
  after(() => node.close());

  const raw = (method: string, path: string, init: RequestInit = {}) =>
    fetch(`${node.baseUrl}${path}`, {
      ...init,
      method,
      headers: { authorization: `Bearer ${admin.token}`, ...(init.headers as Record<string, string>) },
    });

  it("create with multipart/form-data but no boundary is InvalidRequest (MNStorage.create)", async () => {
    const pid = uniquePid("noboundary");
    const error = await checkedError(
      await raw("POST", "/v2/object", {
        headers: { "content-type": "multipart/form-data" },
        body: `--x\r\nContent-Disposition: form-data; name="pid"\r\n\r\n${pid}\r\n--x--\r\n`,
      }),
    );
    assert.equal(error.name, "InvalidRequest", error.body);
    assert.equal(error.detailCode, "1102");
    assert.match(error.body, /boundary/);
    assert.equal((await call(admin, "GET", `/meta/${enc(pid)}`)).status, 404);
  });

  for (const bad of ["abc%FFdef", "abc%E0%A4%A", "abc%zz"]) {
    it(`a malformed percent-encoding in the path (${bad}) is InvalidRequest on every route`, async () => {
      for (const path of [
        `/v2/object/${bad}`,
        `/v2/meta/${bad}`,
        `/v1/object/${bad}`,
        `/v2/no/such/${bad}`,
      ]) {
        const error = await checkedError(await raw("GET", path));
        assert.equal(error.status, 400, `${path}: ${error.body}`);
        assert.equal(error.name, "InvalidRequest");
        assert.match(error.body, /percent-encoded/);
      }
      const head = await raw("HEAD", `/v2/object/${bad}`);
      assert.equal(head.status, 400);
      assert.equal(head.headers.get("dataone-exception-name"), "InvalidRequest");
      // The route the path was meant for gives the detail code: MNStorage.update's InvalidRequest.
      const update = await checkedError(
        await raw("PUT", `/v2/object/${bad}`, { body: form({ newPid: "x" }) }),
      );
      assert.equal(update.detailCode, "1202", update.body);
    });
  }

  it("an identifier holding a literal % (sent as %25) still works", async () => {
    const pid = uniquePid("pct%FF%zz");
    const bytes = Buffer.from("percent\n");
    assert.equal((await create(admin, pid, bytes)).status, 200);
    const got = await call(admin, "GET", `/object/${enc(pid)}`);
    assert.equal(got.status, 200);
    assert.deepEqual(Buffer.from(await got.arrayBuffer()), bytes);
  });

  it("unknown routes and methods, bad content types, bad JSON and too large bodies", async () => {
    const cases: [string, string, RequestInit, string, number][] = [
      ["GET", "/v2/no/such/route", {}, "NotImplemented", 501],
      ["PROPFIND", "/v2/object", {}, "NotImplemented", 501],
      ["POST", "/v2/object", { headers: { "content-type": "text/plain" }, body: "x" }, "InvalidRequest", 400],
      [
        "POST",
        "/v2/object",
        { headers: { "content-type": "application/json" }, body: "{" },
        "InvalidRequest",
        400,
      ],
      [
        "POST",
        "/v2/query/solr/",
        { headers: { "content-type": "application/json" }, body: `{${" ".repeat(2 * 1024 * 1024)}}` },
        "InsufficientResources",
        413,
      ],
    ];
    for (const [method, path, init, name, status] of cases) {
      const error = await checkedError(await raw(method, path, init));
      assert.equal(error.name, name, `${method} ${path}: ${error.body}`);
      assert.equal(error.status, status);
    }
    const head = await raw("HEAD", "/v2/no/such/route");
    assert.equal(head.headers.get("dataone-exception-name"), "NotImplemented");
  });

  it("a request the HTTP parser refuses gets an exception document", async () => {
    const url = new URL(node.baseUrl);
    const answer = await new Promise<string>((resolve, reject) => {
      const socket = net.connect(Number(url.port), url.hostname, () =>
        socket.write(`GET ${url.pathname}/v2/object HTTP/1.1\r\nHost: x\r\nContent-Length: abc\r\n\r\n`),
      );
      let text = "";
      socket.on("data", (chunk) => {
        text += chunk;
      });
      socket.on("close", () => resolve(text));
      socket.on("error", reject);
    });
    assert.match(answer, /^HTTP\/1\.1 400 /);
    assert.match(answer, /content-type: text\/xml/i);
    const body = answer.slice(answer.indexOf("\r\n\r\n") + 4);
    const error = await checkedError(new Response(body, { status: 400 }));
    assert.equal(error.name, "InvalidRequest");
  });

  it("system metadata sent with a bad boundary stores nothing", async () => {
    const pid = uniquePid("badbody");
    const sysmeta = sysmetaXml(pid, Buffer.from("x"));
    const error = await checkedError(
      await raw("POST", "/v2/object", {
        headers: { "content-type": "multipart/form-data; boundary=zzz" },
        body: `--zzz\r\nContent-Disposition: form-data; name="sysmeta"\r\n\r\n${sysmeta}\r\n--zz`,
      }),
    );
    assert.equal(error.name, "InvalidRequest", error.body);
    assert.equal((await call(admin, "GET", `/meta/${enc(pid)}`)).status, 404);
  });
});
