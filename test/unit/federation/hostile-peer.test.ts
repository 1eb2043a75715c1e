/**
 * The federation client against a hostile peer (a local server): documents that never end, larger than the
 * node's maxDocumentBytes, or trickled a byte at a time, and object bytes past their declared size or too slow,
 * are refused within bounds (remote-limits.ts); the peer sees its connection closed.
 */
import assert from "node:assert/strict";
import { mkdtemp, rm } from "node:fs/promises";
import type { ServerResponse } from "node:http";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { resolveConfig } from "../../../src/config/config.ts";
import type { NodeContext } from "../../../src/context/node-context.ts";
import { D1Error } from "../../../src/errors/exceptions.ts";
import { clientFor } from "../../../src/federation/client.ts";
import { type LocalServer, listenLocal } from "../../helpers/peers/local-server.ts";
import { eventually } from "../../helpers/time/eventually.ts";

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const CAP = 64 * 1024;
const CHUNK = Buffer.alloc(16 * 1024, "<");

/** Writes `chunk` until the client goes away; resolves with the bytes written. */
async function endless(response: ServerResponse, delayMs = 0, chunk = CHUNK): Promise<number> {
  let written = 0;
  while (!response.destroyed && written < 512 * 1024 * 1024) {
    if (!response.write(chunk)) await new Promise((resolve) => setTimeout(resolve, 5));
    written += chunk.length;
    if (delayMs) await sleep(delayMs);
    else await new Promise((resolve) => setImmediate(resolve));
  }
  return written;
}

describe("federation client against a hostile peer", () => {
  let server: LocalServer;
  let ctx: NodeContext;
  let dataDir: string;
  /** Bytes each route's answer had written when its client went away. */
  const sent = new Map<string, number>();
  before(async () => {
    dataDir = await mkdtemp(path.join(tmpdir(), "d1node-test-"));
    ctx = { config: resolveConfig({ dataDir, maxDocumentBytes: CAP }) } as NodeContext;
    server = await listenLocal(async (request, response) => {
      const url = request.url ?? "";
      const route = url.split("?")[0]?.replace(/^\/v2\//, "") ?? "";
      const status = route.includes("error") ? 500 : 200;
      response.writeHead(status, { "content-type": "text/xml" });
      if (route.includes("endless") || route === "synchronize") {
        response.write('<?xml version="1.0"?><d1:systemMetadata xmlns:d1="x"><x>');
        sent.set(route, await endless(response));
      } else if (route.includes("trickle")) {
        sent.set(route, await endless(response, 100, Buffer.from("<")));
      } else if (route.includes("declared-large")) {
        response.end(Buffer.alloc(CAP + 1, " "));
      } else if (route === "object") {
        sent.set("list", await endless(response));
      } else {
        response.end("ok");
      }
    });
  });
  after(async () => {
    await server.close();
    await rm(dataDir, { recursive: true, force: true });
  });

  const refused = (pattern: RegExp) => (error: unknown) => {
    assert.ok(error instanceof D1Error, String(error));
    assert.equal(error.exception, "ServiceFailure");
    assert.match(error.description, pattern);
    return true;
  };
  const read = async (stream: NodeJS.ReadableStream) => {
    let bytes = 0;
    for await (const piece of stream) bytes += (piece as Buffer).length;
    return bytes;
  };

  it("system metadata that never ends is refused past maxDocumentBytes, and the connection is closed", async () => {
    const client = clientFor(ctx, server.baseUrl);
    const started = Date.now();
    await assert.rejects(client.getSystemMetadata("meta-endless"), refused(/larger than 65536 bytes/));
    assert.ok(Date.now() - started < 10_000);
    // The peer stops writing because the connection is gone (not after 512 MiB).
    await waitFor(() => sent.has("meta/meta-endless"));
    assert.ok((sent.get("meta/meta-endless") ?? 0) < 64 * 1024 * 1024);
  });

  it("a document one byte over the cap is refused, sent whole with its length", async () => {
    const client = clientFor(ctx, server.baseUrl);
    await assert.rejects(client.getSystemMetadata("declared-large"), refused(/larger than 65536 bytes/));
  });

  it("list pages may be larger (16 documents' worth), not endless", async () => {
    const client = clientFor(ctx, server.baseUrl);
    await assert.rejects(client.listObjects({}), refused(/larger than 1048576 bytes/));
  });

  it("a posted call's answer and an error document are capped as well", async () => {
    const client = clientFor(ctx, server.baseUrl);
    await assert.rejects(client.synchronize("x"), refused(/larger than 65536 bytes/));
    // An endless error document: refused as any document; on a call of bytes, read up to the cap, then a
    // ServiceFailure saying what came.
    await assert.rejects(client.getChecksum("error-endless"), refused(/larger than 65536 bytes/));
    await assert.rejects(client.getReplica("error-endless", 10), refused(/HTTP 500/));
  });

  it("a document trickled a byte at a time (never idle) is given up at the deadline", async () => {
    const client = clientFor(ctx, server.baseUrl, { idleTimeoutMs: 1000, deadlineMs: 1500 });
    const started = Date.now();
    await assert.rejects(client.getSystemMetadata("trickle-meta"), refused(/within 2 s/));
    const took = Date.now() - started;
    assert.ok(took >= 1400 && took < 5000, `took ${took} ms`);
  });

  it("object bytes stop at the byte past the declared size; nothing past it is passed on", async () => {
    const client = clientFor(ctx, server.baseUrl);
    let passed = 0;
    await assert.rejects(
      (async () => {
        for await (const piece of await client.getReplica("bytes-endless", 1000)) passed += piece.length;
      })(),
      (error: unknown) => {
        assert.ok(error instanceof D1Error);
        assert.equal(error.exception, "InvalidSystemMetadata");
        assert.match(error.description, /more than the 1000 bytes/);
        return true;
      },
    );
    assert.ok(passed <= 1000, `${passed} bytes passed on`);
    await waitFor(() => sent.has("replica/bytes-endless"));
  });

  it("object bytes trickled (never idle) are given up at the transfer deadline", async () => {
    const client = clientFor(ctx, server.baseUrl, { idleTimeoutMs: 1000, deadlineMs: 1500 });
    const started = Date.now();
    await assert.rejects(read(await client.get("trickle-bytes", 1000)), refused(/within 2 s/));
    assert.ok(Date.now() - started < 5000);
  });
});

const waitFor = (condition: () => boolean) =>
  eventually("the peer saw its connection closed", async () => (condition() ? true : undefined), 10_000);
