/**
 * The node's log at its most talkative (trace: Fastify's own request lines and the access log) names a reviewer
 * link by its id, never its secret: for its reads, and for methods and paths no route serves (the not-found
 * answer does not echo the secret either; another method than GET or HEAD on a link's paths is 405, naming no
 * token).
 */
import assert from "node:assert/strict";
import { Writable } from "node:stream";
import { after, before, it } from "node:test";
import { create } from "../../helpers/clients/client.ts";
import { uniquePid } from "../../helpers/data/sysmeta.ts";
import { ADMIN, startTestNode, type TestNode } from "../../helpers/nodes/node.ts";

const lines: string[] = [];
let node: TestNode;

before(async () => {
  const log = new Writable({
    write(chunk, _encoding, done) {
      lines.push(String(chunk));
      done();
    },
  });
  node = await startTestNode("sqlite", {}, { logLevel: "trace", logDestination: log });
});
after(() => node?.close());

it("logs the link's reads with its id and without its secret", async () => {
  const pid = uniquePid("eml");
  const admin = { baseUrl: node.baseUrl, token: await node.token(ADMIN) };
  const eml =
    '<eml:eml xmlns:eml="https://eml.ecoinformatics.org/eml-2.2.0" packageId="p" system="s"><dataset><title>T</title></dataset></eml:eml>';
  const created = await create(admin, pid, Buffer.from(eml), {
    readers: [],
    formatId: "https://eml.ecoinformatics.org/eml-2.2.0",
  });
  assert.equal(created.status, 200);
  const made = await fetch(`${node.baseUrl.replace(/\/v2$/, "")}/review-links`, {
    method: "POST",
    headers: { "content-type": "application/json", authorization: `Bearer ${admin.token}` },
    body: JSON.stringify({ pid }),
  });
  const { url, id, token } = (await made.json()) as { url: string; id: string; token: string };
  assert.equal((await fetch(url)).status, 200);
  assert.equal((await fetch(`${url}/object/${encodeURIComponent(pid)}`)).status, 200);
  assert.equal((await fetch(`${url}/nothing`)).status, 400);
  const secret = token.split(".")[1] as string;
  const base = url.slice(0, url.indexOf("/review/"));
  // Methods no review route serves, paths under /review/ the router does not reach, the token encoded.
  const misses: [string, string][] = [
    ["POST", url],
    ["DELETE", url],
    ["PUT", `${url}/object/${encodeURIComponent(pid)}`],
    ["PATCH", `${url}/package`],
    ["OPTIONS", url],
    ["POST", `${url}/unknown/sub/path?x=1`],
    ["DELETE", `${base}/review//${token}`],
    ["GET", `${base}/review/${id}%2E${secret}`],
    ["GET", `${base}/review/${token}x/object/y`],
    ["GET", `${base}/review%2F${token}`],
  ];
  for (const [method, at] of misses) {
    const response = await fetch(at, { method, body: method === "GET" ? undefined : "x=1" });
    const body = await response.text();
    if (method !== "GET" && method !== "OPTIONS") assert.ok(response.status >= 400, `${method} ${at}`);
    // The browser paths under {base}/review/ allow GET and HEAD: any other method there is 405, naming no token.
    if (method !== "GET" && method !== "OPTIONS" && at.startsWith(`${base}/review/`)) {
      assert.equal(response.status, 405, `${method} ${at}`);
      assert.equal(response.headers.get("allow"), "GET, HEAD", `${method} ${at}`);
      assert.ok(!body.includes(id), `${method} ${at} answers without the link's id: ${body}`);
    }
    assert.ok(!body.includes(secret), `${method} ${at} answers without the secret: ${body}`);
    assert.ok(!JSON.stringify([...response.headers]).includes(secret), `${method} ${at}: headers`);
  }
  // Answered before any body is read: a body of a type no route parses, and a large one, change nothing.
  for (const type of ["application/x-never-parsed", "application/json"]) {
    const response = await fetch(`${url}/object/${encodeURIComponent(pid)}`, {
      method: "PUT",
      headers: { "content-type": type },
      body: Buffer.alloc(4 << 20, 120),
    });
    assert.equal(response.status, 405, type);
    assert.equal(response.headers.get("allow"), "GET, HEAD");
    assert.equal(response.headers.get("referrer-policy"), "no-referrer");
    assert.ok(!(await response.text()).includes(id));
  }
  await new Promise((resolve) => setTimeout(resolve, 200));
  const all = lines.join("");
  assert.ok(all.includes(`/review/${id}.*`), "the reads are logged, by the link's id");
  assert.ok(all.includes('"msg":"incoming request"'), "Fastify's own request lines are in the log");
  assert.ok(all.includes('"method":"DELETE"'), "the misses are logged");
  assert.ok(!all.includes(secret), "the secret is nowhere in the log");
  assert.ok(!all.includes(secret.slice(0, 24)), "nor any long part of it");
});
