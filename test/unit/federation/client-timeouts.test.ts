/**
 * The federation client's timeouts against a real listening server: the headers must come within timeoutMs;
 * a body may take as long as it takes while bytes keep coming, and fails once none come for idleTimeoutMs.
 * Every request carries the node's own bearer token.
 */
import assert from "node:assert/strict";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { resolveConfig } from "../../../src/config/config.ts";
import type { NodeContext } from "../../../src/context/node-context.ts";
import { D1Error } from "../../../src/errors/exceptions.ts";
import { clientFor } from "../../../src/federation/client.ts";
import { type LocalServer, listenLocal } from "../../helpers/peers/local-server.ts";

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe("federation client timeouts", () => {
  let server: LocalServer;
  let baseUrl: string;
  let dataDir: string;
  let ctx: NodeContext;
  const authorizations: (string | undefined)[] = [];
  /** Whether the server has sent the whole of the stalled body (its simulated stall is over). */
  let stalledBodyEnded = false;
  before(async () => {
    dataDir = await mkdtemp(path.join(tmpdir(), "d1node-test-"));
    ctx = { config: resolveConfig({ dataDir }) } as NodeContext;
    server = await listenLocal(async (request, response) => {
      authorizations.push(request.headers.authorization);
      if (request.url?.includes("late-headers")) await sleep(2500);
      response.writeHead(200, { "content-type": "application/octet-stream" });
      // steady: 8 pieces 100 ms apart (longer than both timeouts in all); stalled: one piece, then nothing.
      const pieces = request.url?.includes("steady") ? 8 : 1;
      for (let i = 0; i < pieces && !response.destroyed; i++) {
        response.write("x".repeat(10));
        await sleep(100);
      }
      if (request.url?.includes("stalled")) await sleep(1500);
      response.end();
      if (request.url?.includes("stalled")) stalledBodyEnded = true;
    });
    baseUrl = server.baseUrl;
  });
  after(async () => {
    await server.close();
    await rm(dataDir, { recursive: true, force: true });
  });

  const read = async (stream: NodeJS.ReadableStream) => {
    let text = "";
    for await (const piece of stream) text += String(piece);
    return text;
  };

  it("a body that keeps coming is read whole, past both timeouts", async () => {
    const client = clientFor(ctx, baseUrl, { timeoutMs: 300, idleTimeoutMs: 300 });
    assert.equal(await read(await client.getReplica("steady", 80)), "x".repeat(80));
    assert.match(authorizations.at(-1) ?? "", /^Bearer [\w-]+\.[\w-]+\.[\w-]+$/);
  });

  it("a body whose bytes stop fails after the idle timeout", async () => {
    const client = clientFor(ctx, baseUrl, { idleTimeoutMs: 300 });
    await assert.rejects(read(await client.getReplica("stalled", 80)));
    assert.equal(stalledBodyEnded, false, "failed before the server ended the body");
  });

  it("late headers are a ServiceFailure", async () => {
    const client = clientFor(ctx, baseUrl, { timeoutMs: 200 });
    await assert.rejects(client.getReplica("late-headers", 80), (error: unknown) => {
      assert.ok(error instanceof D1Error);
      assert.equal(error.exception, "ServiceFailure");
      return true;
    });
  });
});
