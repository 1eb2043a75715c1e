/**
 * The node's log as an operator reads it, from `d1node serve` itself: one format for every line, chosen by
 * `--log-format` (readable text by default, JSON for machines), an access line per request at info, and lines
 * when it shuts down on SIGTERM.
 */
import assert from "node:assert/strict";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { spawnNode } from "../../helpers/nodes/process-node.ts";
import { eventually } from "../../helpers/time/eventually.ts";

describe("log format, access log and shutdown line", () => {
  let dir: string;
  before(async () => {
    dir = await mkdtemp(path.join(tmpdir(), "d1node-logs-"));
  });
  after(() => rm(dir, { recursive: true, force: true }));

  const run = async (format: string[]) => {
    const node = await spawnNode([
      "--data-dir",
      path.join(dir, format.join("") || "default"),
      "--log-level",
      "info",
      ...format,
    ]);
    try {
      assert.equal((await fetch(`${node.baseUrl}/v2/monitor/ping`)).status, 200);
      // An identifier with a line break in it cannot start a line of its own.
      assert.equal((await fetch(`${node.baseUrl}/v2/object/a%0AINFO%20forged`)).status, 404);
      await eventually("the access lines", async () => (/forged/.test(node.output()) ? true : undefined));
    } finally {
      await node.kill("SIGTERM");
    }
    return node.output().trimEnd().split("\n");
  };

  it("text by default: readable lines, an access line per request, lines at shutdown", {
    timeout: 120_000,
  }, async () => {
    const lines = await run([]);
    for (const line of lines)
      assert.doesNotMatch(line, /^\{/, `a JSON line among text:\n${lines.join("\n")}`);
    const ping = lines.find((l) => l.includes("url=/mn/v2/monitor/ping"));
    assert.match(
      ping ?? "",
      /^\S+Z INFO {2}request .*method=GET url=\/mn\/v2\/monitor\/ping status=200 ms=\S+ api=MNCore\.ping/,
    );
    assert.ok(lines.some((l) => /url=\/mn\/v2\/object\/a%0AINFO%20forged status=404/.test(l)));
    assert.ok(!lines.some((l) => l.startsWith("INFO forged")));
    assert.match(
      lines.at(-2) ?? "",
      /INFO {2}shutting down: finishing the requests in flight signal=SIGTERM$/,
    );
    assert.match(lines.at(-1) ?? "", /INFO {2}stopped$/);
  });

  it("json: every line a JSON object, the same facts as fields", { timeout: 120_000 }, async () => {
    const lines = await run(["--log-format", "json"]);
    const entries = lines.map((line) => JSON.parse(line) as Record<string, unknown>);
    assert.ok(
      entries.some(
        (e) => typeof e.msg === "string" && / serving http/.test(e.msg) && typeof e.url === "string",
      ),
    );
    const ping = entries.find((e) => e.url === "/mn/v2/monitor/ping");
    assert.equal(ping?.msg, "request");
    assert.equal(ping?.status, 200);
    assert.equal(ping?.api, "MNCore.ping");
    assert.deepEqual(
      entries.slice(-2).map((e) => e.msg),
      ["shutting down: finishing the requests in flight", "stopped"],
    );
  });
});
