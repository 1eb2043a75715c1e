/**
 * Bodiless calls read as text (src/federation/text-request.ts) against a real listening server: a body sent in
 * pieces arrives whole, an error document becomes its exception, anything else a ServiceFailure, and the
 * timeouts hold (headers late, body stalled) as they do for streamed answers.
 */
import assert from "node:assert/strict";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { Agent } from "undici";
import { resolveConfig } from "../../../src/config/config.ts";
import type { NodeContext } from "../../../src/context/node-context.ts";
import { D1Error } from "../../../src/errors/exceptions.ts";
import { clientFor } from "../../../src/federation/client.ts";
import { requestText } from "../../../src/federation/text-request.ts";
import { serializeError } from "../../../src/types/index.ts";
import { type LocalServer, listenLocal } from "../../helpers/peers/local-server.ts";

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const NOT_FOUND = serializeError({
  exception: "NotFound",
  errorCode: 404,
  detailCode: "1060",
  description: "no such object",
  pid: "gone",
});

describe("bodiless calls read as text", () => {
  let server: LocalServer;
  let baseUrl: string;
  let dataDir: string;
  let ctx: NodeContext;
  before(async () => {
    dataDir = await mkdtemp(path.join(tmpdir(), "d1node-test-"));
    ctx = { config: resolveConfig({ dataDir }) } as NodeContext;
    server = await listenLocal(async (request, response) => {
      const url = request.url ?? "";
      if (url.includes("late")) await sleep(1500);
      if (url.includes("gone")) {
        response.writeHead(404, { "content-type": "text/xml" }).end(NOT_FOUND);
        return;
      }
      if (url.includes("broken")) {
        response.writeHead(500, { "content-type": "text/plain" }).end("oops");
        return;
      }
      response.writeHead(200, { "content-type": "text/plain; charset=utf-8" });
      for (const piece of ["pi", "èc", "es"]) {
        response.write(piece);
        await sleep(20);
      }
      if (url.includes("stalled")) await sleep(1500);
      response.end(url.includes("ping") ? "" : "!");
    });
    baseUrl = server.baseUrl;
  });
  after(async () => {
    await server.close();
    await rm(dataDir, { recursive: true, force: true });
  });

  const serviceFailure = (error: unknown) => {
    assert.ok(error instanceof D1Error);
    assert.equal(error.exception, "ServiceFailure");
    return true;
  };

  it("reads the status and the whole body, sent in pieces, with a query kept", async () => {
    const agent = new Agent();
    const answer = await requestText(agent, `${baseUrl}/v2/meta/a%2Fb?x=1`, {
      method: "GET",
      headers: {},
      headersTimeout: 1000,
      bodyTimeout: 1000,
      maxBytes: 1000,
      deadlineMs: 5000,
    });
    assert.deepEqual(answer, { statusCode: 200, text: "pièces!" });
    await agent.close();
  });

  it("an error document is its exception; any other error answer a ServiceFailure", async () => {
    const client = clientFor(ctx, baseUrl);
    await assert.rejects(client.getSystemMetadata("gone"), (error: unknown) => {
      assert.ok(error instanceof D1Error);
      assert.equal(error.exception, "NotFound");
      assert.equal(error.description, "no such object");
      return true;
    });
    await assert.rejects(client.getSystemMetadata("broken"), serviceFailure);
    await client.ping();
  });

  it("late headers, a stalled body and a closed port are ServiceFailures", async () => {
    const client = clientFor(ctx, baseUrl, { timeoutMs: 300, idleTimeoutMs: 300 });
    await assert.rejects(client.getSystemMetadata("late"), serviceFailure);
    await assert.rejects(client.getSystemMetadata("stalled"), serviceFailure);
    const closed = clientFor(ctx, "http://127.0.0.1:9", { timeoutMs: 300 });
    await assert.rejects(closed.ping(), serviceFailure);
  });
});
