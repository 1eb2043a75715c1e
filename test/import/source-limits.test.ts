/**
 * The import's calls to a source that does not behave: system metadata that never ends is given up at the
 * document cap (the connection closed, not read on), a source that trickles a byte at a time meets the call's
 * deadline, and an object that keeps coming past its declared size stops at that size.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { cappedAt } from "../../src/import/capped-bytes.ts";
import { openSource, type SourceNode } from "../../src/import/source.ts";
import { type FakeSource, fakeRecord, startFakeSource } from "./fake-source.ts";

const KIB = 1024;

describe("an import's calls to a misbehaving source", () => {
  let fake: FakeSource;
  let source: SourceNode;
  const timers = new Set<NodeJS.Timeout>();

  before(async () => {
    fake = await startFakeSource();
    fake.objects.set("big", fakeRecord("big", Buffer.alloc(1000, 1), new Date(Date.UTC(2026, 0, 1))));
    fake.route = (path, _request, response) => {
      if (path === "/meta/endless") {
        // A system metadata document that never ends, written as fast as it is read.
        response.writeHead(200, { "content-type": "text/xml" });
        const chunk = Buffer.from(`<?xml version="1.0"?><x>${"a".repeat(64 * KIB)}`);
        const more = () => {
          while (!response.destroyed && response.write(chunk)) fake.sent += chunk.length;
        };
        response.on("drain", more);
        more();
        return true;
      }
      if (path === "/meta/slow") {
        response.writeHead(200, { "content-type": "text/xml" });
        const timer = setInterval(() => response.write("<"), 200);
        timers.add(timer);
        response.on("close", () => clearInterval(timer));
        return true;
      }
      if (path === "/object/big") {
        // Declared 1,000 bytes; sends without end.
        response.writeHead(200, { "content-type": "application/octet-stream" });
        const chunk = Buffer.alloc(64 * KIB, 2);
        const more = () => {
          while (!response.destroyed && response.write(chunk)) fake.sent += chunk.length;
        };
        response.on("drain", more);
        more();
        return true;
      }
      return false;
    };
    source = await openSource(fake.baseUrl, {}, undefined, { maxDocumentBytes: 256 * KIB, deadlineMs: 1500 });
  });
  after(async () => {
    for (const timer of timers) clearInterval(timer);
    await source?.close();
    await fake?.close();
  });

  it("gives up a document past the cap and reads no further", { timeout: 30_000 }, async () => {
    fake.sent = 0;
    await assert.rejects(source.getSystemMetadata("endless"), {
      exception: "ServiceFailure",
      description: /answered more than 262144 bytes/,
    });
    assert.ok(fake.sent < 16 * 1024 * KIB, `the source wrote ${fake.sent} bytes`);
  });

  it("ends a call the source trickles at its deadline", { timeout: 30_000 }, async () => {
    const started = Date.now();
    await assert.rejects(source.getSystemMetadata("slow"), {
      exception: "ServiceFailure",
      description: /did not finish within 2 s/,
    });
    assert.ok(Date.now() - started < 5000, `${Date.now() - started} ms`);
  });

  it("stops an object's bytes at its declared size", { timeout: 30_000 }, async () => {
    fake.sent = 0;
    let passed = 0;
    const bytes = cappedAt(await source.get("big", 1000), 1000, "big", (count) => {
      passed += count;
    });
    await assert.rejects(
      (async () => {
        for await (const _ of bytes);
      })(),
      { exception: "InvalidSystemMetadata", description: /more bytes than the size/ },
    );
    assert.ok(passed <= 1000, `${passed} bytes passed on`);
    assert.ok(fake.sent < 16 * 1024 * KIB, `the source wrote ${fake.sent} bytes`);
  });
});
