/**
 * CORS as a browser exercises it. Every origin is echoed with Allow-Credentials (MetacatUI on search.dataone.org
 * calls every Member Node with withCredentials and its bearer token) and may preflight the API's methods with the
 * Authorization header; the opaque origin "null" gets "*". Which origins' requests may use the user's client
 * certificate is tested over TLS in cors-certificates.test.ts.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { resolveConfig } from "../../../src/config/config.ts";
import { call, create, enc, form } from "../../helpers/clients/client.ts";
import { sysmetaXml, uniquePid } from "../../helpers/data/sysmeta.ts";
import { ADMIN, startTestNode, type TestNode } from "../../helpers/nodes/node.ts";

const METACATUI = "https://search.example.org";
const HOSTILE = "https://evil.example.com";

describe("CORS", () => {
  let node: TestNode;
  before(async () => {
    node = await startTestNode("sqlite", { corsOrigins: [METACATUI] });
  });
  after(() => node.close());

  const get = (origin: string) =>
    fetch(`${node.baseUrl}/v2/monitor/ping`, { headers: { origin, cookie: "JSESSIONID=abc" } });

  const preflight = (origin: string, method: string, headers: string) =>
    fetch(`${node.baseUrl}/v2/object/some-pid`, {
      method: "OPTIONS",
      headers: {
        origin,
        "access-control-request-method": method,
        "access-control-request-headers": headers,
      },
    });

  const methods = (response: Response) =>
    (response.headers.get("access-control-allow-methods") ?? "").split(/,\s*/).filter(Boolean);
  const allowedHeaders = (response: Response) =>
    (response.headers.get("access-control-allow-headers") ?? "").toLowerCase().split(/,\s*/);

  for (const origin of [HOSTILE, METACATUI]) {
    it(`answers ${origin} with its origin echoed and credentials allowed`, async () => {
      const response = await get(origin);
      assert.equal(response.status, 200);
      assert.equal(response.headers.get("access-control-allow-origin"), origin);
      assert.equal(response.headers.get("access-control-allow-credentials"), "true");
      assert.match(response.headers.get("vary") ?? "", /Origin/);
      assert.match(response.headers.get("access-control-expose-headers") ?? "", /DataONE-Exception-Name/);
      assert.match(
        response.headers.get("access-control-expose-headers") ?? "",
        /ETag, Accept-Ranges, Content-Range/,
      );
    });
  }

  for (const origin of [HOSTILE, METACATUI, "null"]) {
    it(`lets ${origin} preflight the API's methods, its token and the read conditions, nothing else`, async () => {
      const response = await preflight(origin, "DELETE", "authorization, x-evil, content-type");
      assert.equal(response.status, 204);
      assert.deepEqual(methods(response), ["GET", "HEAD", "POST", "PUT", "DELETE"]);
      assert.ok(allowedHeaders(response).includes("authorization"));
      assert.ok(allowedHeaders(response).includes("content-type"));
      assert.ok(!allowedHeaders(response).includes("x-evil"));
      const conditional = await preflight(origin, "GET", "range, if-range, if-none-match, if-modified-since");
      for (const header of ["range", "if-range", "if-none-match", "if-modified-since"]) {
        assert.ok(allowedHeaders(conditional).includes(header), header);
      }
    });
  }

  it('answers the opaque origin "null" with "*" and no credentials', async () => {
    for (const response of [await get("null"), await preflight("null", "GET", "authorization")]) {
      assert.equal(response.headers.get("access-control-allow-origin"), "*");
      assert.equal(response.headers.get("access-control-allow-credentials"), null);
    }
  });

  it("answers MetacatUI on search.dataone.org (not listed) as it calls a Member Node when logged in", async () => {
    // MetacatUI's createAjaxSettings: withCredentials and "Authorization: Bearer"; a browser then needs the origin
    // echoed with Allow-Credentials on the preflight and the answer ("*" fails the call).
    const origin = "https://search.dataone.org";
    const pid = uniquePid("cors-metacatui");
    const pre = await fetch(`${node.baseUrl}/v2/object`, {
      method: "OPTIONS",
      headers: {
        origin,
        "access-control-request-method": "POST",
        "access-control-request-headers": "authorization",
      },
    });
    assert.equal(pre.status, 204);
    assert.equal(pre.headers.get("access-control-allow-origin"), origin);
    assert.equal(pre.headers.get("access-control-allow-credentials"), "true");
    assert.ok(methods(pre).includes("POST"));
    assert.ok(allowedHeaders(pre).includes("authorization"));
    const caller = { baseUrl: node.baseUrl, token: await node.token(ADMIN) };
    const bytes = Buffer.from("t\n1\n");
    const created = await call(caller, "POST", "/object", {
      headers: { origin },
      body: form({ sysmeta: { xml: sysmetaXml(pid, bytes) }, pid, object: bytes }),
    });
    assert.equal(created.status, 200, await created.text());
    assert.equal(created.headers.get("access-control-allow-origin"), origin);
    assert.equal(created.headers.get("access-control-allow-credentials"), "true");
  });

  it("sends an object read from another origin with the CORS headers and the object's own", async () => {
    const pid = uniquePid("cors-get");
    const bytes = Buffer.from([0, 1, 127, 128, 200, 255, 10, 13]);
    const created = await create({ baseUrl: node.baseUrl, token: await node.token(ADMIN) }, pid, bytes);
    assert.equal(created.status, 200, await created.text());
    for (const origin of [HOSTILE, METACATUI]) {
      const response = await fetch(`${node.baseUrl}/v2/object/${enc(pid)}`, { headers: { origin } });
      assert.equal(response.status, 200);
      assert.equal(response.headers.get("access-control-allow-origin"), origin);
      assert.match(response.headers.get("access-control-expose-headers") ?? "", /ETag/);
      assert.match(response.headers.get("etag") ?? "", /^"sha256-[0-9a-f]{64}"$/);
      assert.equal(response.headers.get("accept-ranges"), "bytes");
      assert.ok(response.headers.get("last-modified"));
      assert.deepEqual(Buffer.from(await response.arrayBuffer()), bytes);
    }
  });

  it("by default lists no origin", () => {
    assert.deepEqual(resolveConfig({}).corsOrigins, []);
  });

  it('refuses "*", "null" and paths as configured origins, naming the setting', () => {
    for (const bad of ["*", "null", "https://search.example.org/metacatui"]) {
      assert.throws(() => resolveConfig({ corsOrigins: [bad] }), /setting "corsOrigins"/);
    }
    assert.deepEqual(resolveConfig({ corsOrigins: ["https://Search.example.org/"] }).corsOrigins, [
      METACATUI,
    ]);
  });
});
