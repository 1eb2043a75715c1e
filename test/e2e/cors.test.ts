/**
 * CORS as a browser exercises it. A hostile page (any origin, or the opaque origin "null") may read the public API
 * but never with the user's credentials: `Access-Control-Allow-Origin: *` and no Allow-Credentials, and its
 * preflights get only the read methods and no Authorization header. A configured origin (the node's MetacatUI) is
 * echoed with credentials and may preflight the writes with its bearer token.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { resolveConfig } from "../../src/config/config.ts";
import { create, enc } from "../helpers/client.ts";
import { ADMIN, startTestNode, type TestNode } from "../helpers/node.ts";
import { uniquePid } from "../helpers/sysmeta.ts";

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

  for (const origin of [HOSTILE, "null"]) {
    it(`answers reads from ${origin} to any origin, without credentials`, async () => {
      const response = await get(origin);
      assert.equal(response.status, 200);
      assert.equal(response.headers.get("access-control-allow-origin"), "*");
      assert.equal(response.headers.get("access-control-allow-credentials"), null);
      assert.match(response.headers.get("access-control-expose-headers") ?? "", /DataONE-Exception-Name/);
      assert.match(
        response.headers.get("access-control-expose-headers") ?? "",
        /ETag, Accept-Ranges, Content-Range/,
      );
    });

    it(`lets ${origin} preflight conditional and ranged reads`, async () => {
      const response = await preflight(origin, "GET", "range, if-range, if-none-match, if-modified-since");
      assert.equal(response.status, 204);
      for (const header of ["range", "if-range", "if-none-match", "if-modified-since"]) {
        assert.ok(allowedHeaders(response).includes(header), header);
      }
    });

    it(`refuses ${origin} a preflight for DELETE with Authorization and other headers`, async () => {
      const response = await preflight(origin, "DELETE", "authorization, x-evil, content-type");
      assert.equal(response.status, 204);
      assert.equal(response.headers.get("access-control-allow-origin"), "*");
      assert.equal(response.headers.get("access-control-allow-credentials"), null);
      assert.deepEqual(methods(response), ["GET", "HEAD", "POST"]);
      assert.ok(!allowedHeaders(response).includes("authorization"));
      assert.ok(!allowedHeaders(response).includes("x-evil"));
    });
  }

  it("echoes the configured origin with credentials, for reads and preflighted writes", async () => {
    const response = await get(METACATUI);
    assert.equal(response.headers.get("access-control-allow-origin"), METACATUI);
    assert.equal(response.headers.get("access-control-allow-credentials"), "true");
    assert.match(response.headers.get("vary") ?? "", /Origin/);
    const pre = await preflight(METACATUI, "DELETE", "authorization, x-evil");
    assert.equal(pre.headers.get("access-control-allow-origin"), METACATUI);
    assert.equal(pre.headers.get("access-control-allow-credentials"), "true");
    assert.ok(methods(pre).includes("DELETE") && methods(pre).includes("PUT"));
    assert.ok(allowedHeaders(pre).includes("authorization"));
    assert.ok(!allowedHeaders(pre).includes("x-evil"));
  });

  it("sends an object read from another origin with the CORS headers and the object's own", async () => {
    const pid = uniquePid("cors-get");
    const bytes = Buffer.from([0, 1, 127, 128, 200, 255, 10, 13]);
    const created = await create({ baseUrl: node.baseUrl, token: await node.token(ADMIN) }, pid, bytes);
    assert.equal(created.status, 200, await created.text());
    for (const origin of [HOSTILE, METACATUI]) {
      const response = await fetch(`${node.baseUrl}/v2/object/${enc(pid)}`, { headers: { origin } });
      assert.equal(response.status, 200);
      assert.equal(response.headers.get("access-control-allow-origin"), origin === HOSTILE ? "*" : origin);
      assert.match(response.headers.get("access-control-expose-headers") ?? "", /ETag/);
      assert.match(response.headers.get("etag") ?? "", /^"sha256-[0-9a-f]{64}"$/);
      assert.equal(response.headers.get("accept-ranges"), "bytes");
      assert.ok(response.headers.get("last-modified"));
      assert.deepEqual(Buffer.from(await response.arrayBuffer()), bytes);
    }
  });

  it("by default trusts no origin with credentials", async () => {
    assert.deepEqual(resolveConfig({}).corsOrigins, []);
    const plain = await startTestNode("sqlite");
    try {
      const response = await fetch(`${plain.baseUrl}/v2/monitor/ping`, { headers: { origin: METACATUI } });
      assert.equal(response.headers.get("access-control-allow-origin"), "*");
      assert.equal(response.headers.get("access-control-allow-credentials"), null);
    } finally {
      await plain.close();
    }
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
