/** The node's log at its most talkative (debug: Fastify's own request lines and the access log) names a reviewer link by its id, never its secret. */
import assert from "node:assert/strict";
import { Writable } from "node:stream";
import { after, before, it } from "node:test";
import { create } from "../helpers/client.ts";
import { ADMIN, startTestNode, type TestNode } from "../helpers/node.ts";
import { uniquePid } from "../helpers/sysmeta.ts";

const lines: string[] = [];
let node: TestNode;

before(async () => {
  const log = new Writable({
    write(chunk, _encoding, done) {
      lines.push(String(chunk));
      done();
    },
  });
  node = await startTestNode("sqlite", {}, { logLevel: "debug", logDestination: log });
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
  await new Promise((resolve) => setTimeout(resolve, 200));
  const secret = token.split(".")[1] as string;
  const all = lines.join("");
  assert.ok(all.includes(`/review/${id}.*`), "the reads are logged, by the link's id");
  assert.ok(!all.includes(secret), "the secret is nowhere in the log");
});
