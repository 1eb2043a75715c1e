/** CNIdentity.getSubjectInfo lookups: cached for the TTL, NotFound cached, failures cached briefly, one at a time. */
import assert from "node:assert/strict";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { after, before, describe, it } from "node:test";
import { createCnSubjectInfoSource } from "../../../src/auth/cn-identity.ts";
import { serializeSubjectInfo } from "../../../src/types/index.ts";

const KNOWN = "CN=Known,DC=org";

describe("CN subject info lookups", () => {
  let server: Server;
  let base: string;
  const asked: string[] = [];
  let failing = false;
  before(async () => {
    server = createServer((request, response) => {
      const subject = decodeURIComponent((request.url ?? "").replace(/^\/cn\/v2\/accounts\//, ""));
      asked.push(subject);
      if (failing) return response.writeHead(500).end("boom");
      if (subject !== KNOWN) return response.writeHead(404).end("<error/>");
      const info = serializeSubjectInfo({
        persons: [
          {
            subject,
            givenNames: ["K"],
            familyName: "N",
            emails: [],
            isMemberOf: ["G"],
            equivalentIdentities: [],
          },
        ],
        groups: [],
      });
      setTimeout(() => response.writeHead(200, { "content-type": "text/xml" }).end(info), 20);
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/cn`;
  });
  after(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it("asks once per TTL, shares a lookup in flight, and caches NotFound", async () => {
    let now = 0;
    const source = createCnSubjectInfoSource({ cnBaseUrl: base, ttlMs: 1000, now: () => now });
    asked.length = 0;
    const [a, b] = await Promise.all([source.lookup(KNOWN), source.lookup(KNOWN)]);
    assert.equal(a?.persons[0]?.isMemberOf[0], "G");
    assert.equal(a, b);
    assert.equal(await source.lookup("CN=Nobody"), undefined);
    await source.lookup(KNOWN);
    await source.lookup("CN=Nobody");
    assert.deepEqual(asked, [KNOWN, "CN=Nobody"]);
    now = 1001;
    await source.lookup(KNOWN);
    assert.deepEqual(asked, [KNOWN, "CN=Nobody", KNOWN]);
  });

  it("yields nothing when the CN fails or is unreachable, and retries after the failure TTL", async () => {
    let now = 0;
    const warnings: string[] = [];
    const source = createCnSubjectInfoSource({
      cnBaseUrl: base,
      ttlMs: 60_000,
      failureTtlMs: 100,
      now: () => now,
      warn: (m) => warnings.push(m),
    });
    failing = true;
    asked.length = 0;
    assert.equal(await source.lookup(KNOWN), undefined);
    assert.equal(await source.lookup(KNOWN), undefined);
    assert.equal(asked.length, 1);
    failing = false;
    now = 101;
    assert.equal((await source.lookup(KNOWN))?.persons.length, 1);
    assert.equal(warnings.length, 1);
    const dead = createCnSubjectInfoSource({
      cnBaseUrl: "http://127.0.0.1:9/cn",
      ttlMs: 1000,
      timeoutMs: 500,
    });
    assert.equal(await dead.lookup(KNOWN), undefined);
  });
});
