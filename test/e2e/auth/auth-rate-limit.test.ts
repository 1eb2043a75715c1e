/**
 * MNAuthorization.isAuthorized: "NotAuthorized:1820 (also raised when the request comes from a blocked source)".
 * A source over the configured limit is blocked for a while; other sources and other operations are not. Behind
 * a trusted proxy the source is the client address the proxy forwards.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { createBody, newPid } from "../../helpers/data/auth-objects.ts";
import { ADMIN, startTestNode, type TestNode } from "../../helpers/nodes/node.ts";

const SECRET = "another-long-secret-for-tests";

describe("isAuthorized source limit", () => {
  let node: TestNode;
  let pid: string;
  before(async () => {
    node = await startTestNode("sqlite", {
      isAuthorizedLimit: 3,
      isAuthorizedBlockSeconds: 1,
      proxySecret: SECRET,
    });
    pid = newPid("limit");
    const spec = {
      rightsHolder: ADMIN,
      accessPolicy: [{ subjects: ["public"], permissions: ["read" as const] }],
    };
    const made = await fetch(`${node.baseUrl}/v2/object`, {
      method: "POST",
      headers: { authorization: `Bearer ${await node.token(ADMIN)}` },
      body: createBody(pid, spec),
    });
    assert.equal(made.status, 200);
  });
  after(() => node.close());

  const isAuthorized = async (from?: string) => {
    const headers: Record<string, string> = from
      ? { "x-proxy-secret": SECRET, "x-forwarded-for": `203.0.113.9, ${from}` }
      : {};
    const response = await fetch(`${node.baseUrl}/v1/isAuthorized/${encodeURIComponent(pid)}?action=read`, {
      headers,
    });
    const body = await response.text();
    return response.status === 200
      ? "ok"
      : `${/name="([^"]+)"/.exec(body)?.[1]}:${/detailCode="([^"]+)"/.exec(body)?.[1]}`;
  };

  it("blocks a source that calls too often with NotAuthorized 1820", async () => {
    assert.deepEqual(
      [await isAuthorized("10.0.0.1"), await isAuthorized("10.0.0.1"), await isAuthorized("10.0.0.1")],
      ["ok", "ok", "ok"],
    );
    assert.equal(await isAuthorized("10.0.0.1"), "NotAuthorized:1820");
    assert.equal(await isAuthorized("10.0.0.1"), "NotAuthorized:1820");
    // Another source, and other operations from the blocked one, go ahead.
    assert.equal(await isAuthorized("10.0.0.2"), "ok");
    const get = await fetch(`${node.baseUrl}/v2/object/${encodeURIComponent(pid)}`, {
      headers: { "x-proxy-secret": SECRET, "x-forwarded-for": "10.0.0.1" },
    });
    assert.equal(get.status, 200);
    // The block's end is the limiter's rule, shown with a moved clock in test/unit/auth/is-authorized-limit.test.ts.
  });

  it("counts by the socket's address when the proxy secret is missing", async () => {
    const results: string[] = [];
    for (let i = 0; i < 4; i++) results.push(await isAuthorized());
    assert.deepEqual(results, ["ok", "ok", "ok", "NotAuthorized:1820"]);
  });
});
