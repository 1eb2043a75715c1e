/**
 * Switching a node's store after a complete migration (src/cli/folder-commands/store-setting.ts): its config file is rewritten
 * (other settings kept) when the store comes from it; otherwise the setting to start the node with is printed.
 */
import assert from "node:assert/strict";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { switchStoreSetting } from "../../../src/cli/folder-commands/store-setting.ts";

const s3 = { store: "s3://bucket/node", storeEndpoint: "http://127.0.0.1:7480" };

describe("store setting switch", () => {
  let dir: string;
  let file: string;
  before(async () => {
    dir = await mkdtemp(path.join(tmpdir(), "d1node-switch-"));
    file = path.join(dir, "node.json");
    await writeFile(file, JSON.stringify({ nodeId: "urn:node:X", dataDir: "/data" }));
  });
  after(() => rm(dir, { recursive: true, force: true }));

  it("rewrites the config file both ways, keeping every other setting", async () => {
    const line = await switchStoreSetting({ configFile: file, fromFlags: false, env: {} }, s3);
    assert.match(line, /"store" now is s3:\/\/bucket\/node/);
    assert.deepEqual(JSON.parse(await readFile(file, "utf8")), {
      nodeId: "urn:node:X",
      dataDir: "/data",
      ...s3,
    });
    await switchStoreSetting({ configFile: file, fromFlags: false, env: {} }, { ...s3, store: undefined });
    const back = JSON.parse(await readFile(file, "utf8")) as Record<string, unknown>;
    assert.equal(back.store, undefined);
    assert.equal(back.nodeId, "urn:node:X");
  });

  it("prints the setting when the store comes from a flag, the environment, or no file", async () => {
    const before = await readFile(file, "utf8");
    const flags = await switchStoreSetting({ configFile: file, fromFlags: true, env: {} }, s3);
    assert.match(
      flags,
      /start it with --store s3:\/\/bucket\/node --store-endpoint http:\/\/127\.0\.0\.1:7480/,
    );
    const env = await switchStoreSetting(
      { configFile: file, fromFlags: false, env: { D1NODE_STORE: "s3://old/x" } },
      s3,
    );
    assert.match(env, /set D1NODE_STORE=s3:\/\/bucket\/node/);
    const none = await switchStoreSetting(
      { configFile: undefined, fromFlags: false, env: {} },
      {
        ...s3,
        store: undefined,
      },
    );
    assert.match(none, /start it with no --store/);
    assert.equal(await readFile(file, "utf8"), before, "the file is left alone");
  });
});
