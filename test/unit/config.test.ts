/** Configuration layers and validation. */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { configFromEnv, resolveConfig } from "../../src/config/config.ts";

describe("config", () => {
  it("derives the base URL and applies layers in order", () => {
    const c = resolveConfig(
      { port: 9000 },
      configFromEnv({ D1NODE_PORT: "9100", D1NODE_BASE_PATH: "/node/" }),
    );
    assert.equal(c.port, 9100);
    assert.equal(c.basePath, "/node");
    assert.equal(c.baseUrl, "http://127.0.0.1:9100/node");
  });

  it("reads ;-separated subject lists from the environment", () => {
    const c = resolveConfig(configFromEnv({ D1NODE_ADMIN_SUBJECTS: "CN=a,DC=x; CN=b,DC=y" }));
    assert.deepEqual(c.adminSubjects, ["CN=a,DC=x", "CN=b,DC=y"]);
  });

  it("refuses bad settings with the setting's name", () => {
    assert.throws(() => resolveConfig({ port: "x" }), /port/);
    assert.throws(() => resolveConfig({ nodeId: "node1" }), /nodeId/);
    assert.throws(() => resolveConfig({ role: "xx" }), /role/);
    assert.throws(() => resolveConfig({ colour: "blue" } as never), /colour/);
  });
});
