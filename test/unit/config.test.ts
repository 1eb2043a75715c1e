/** Configuration layers and validation. */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { configFromEnv, resolveConfig } from "../../src/config/config.ts";
import { createTestPki } from "../helpers/data/pki.ts";

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

  it("metrics and the status page: administrators only unless set", () => {
    assert.equal(resolveConfig().metrics, "admin");
    assert.equal(resolveConfig().statusPage, "admin");
    const env = configFromEnv({ D1NODE_METRICS: "public", D1NODE_STATUS_PAGE: "off" });
    assert.deepEqual([resolveConfig(env).metrics, resolveConfig(env).statusPage], ["public", "off"]);
  });

  it("a process's own scrape target and shutdown grace: none unless set, from the environment too", () => {
    assert.deepEqual([resolveConfig().metricsPort, resolveConfig().shutdownGrace], [undefined, 0]);
    const env = configFromEnv({ D1NODE_METRICS_PORT: "9464", D1NODE_SHUTDOWN_GRACE: "5" });
    assert.deepEqual([resolveConfig(env).metricsPort, resolveConfig(env).shutdownGrace], [9464, 5]);
    assert.throws(() => resolveConfig({ metricsPort: "x" }), /setting "metricsPort" must be an integer/);
    assert.throws(() => resolveConfig({ shutdownGrace: -1 }), /setting "shutdownGrace" must be an integer/);
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
    assert.throws(
      () => resolveConfig({ metrics: "yes" }),
      /setting "metrics" must be one of off, public, admin/,
    );
    assert.throws(() => resolveConfig({ statusPage: "all" }), /statusPage/);
    assert.equal(resolveConfig({}).databasePoolSize, 10);
    assert.equal(resolveConfig({ databasePoolSize: 3 }).databasePoolSize, 3);
    assert.throws(() => resolveConfig({ databasePoolSize: 0 }), /databasePoolSize/);
    assert.equal(resolveConfig({}).sqliteDurableCommits, true);
    assert.equal(
      resolveConfig(configFromEnv({ D1NODE_SQLITE_DURABLE_COMMITS: "false" })).sqliteDurableCommits,
      false,
    );
    assert.throws(() => resolveConfig({ sqliteDurableCommits: "sometimes" }), /sqliteDurableCommits/);
  });

  it("replication settings: booleans and lists from the environment; replicate needs a CN", () => {
    const c = resolveConfig(
      { cnBaseUrl: "https://cn.example.org/cn" },
      configFromEnv({
        D1NODE_REPLICATE: "true",
        D1NODE_REPLICATION_MAX_OBJECT_SIZE: "1000",
        D1NODE_REPLICATION_ALLOWED_FORMATS: "text/csv;text/plain",
      }),
    );
    assert.equal(c.replicate, true);
    assert.equal(c.replicationMaxObjectSize, 1000);
    assert.equal(c.replicationSpaceAllocated, undefined);
    assert.deepEqual(c.replicationAllowedFormats, ["text/csv", "text/plain"]);
    assert.equal(resolveConfig({}).replicate, false);
    assert.throws(() => resolveConfig({ replicate: true }), /replicate.*cnBaseUrl/);
    assert.throws(() => resolveConfig({ replicate: "yes" }), /replicate/);
    assert.throws(() => resolveConfig({ replicationRequestTimeout: 0 }), /replicationRequestTimeout/);
  });

  it("node subject: explicit, else the node certificate's DN, else from the node id", () => {
    const pki = createTestPki();
    try {
      const cert = pki.node("urn:node:CERTMN");
      assert.equal(
        resolveConfig({ nodeId: "urn:node:MINE" }).nodeSubject,
        "CN=urn:node:MINE,DC=dataone,DC=org",
      );
      const fromCert = resolveConfig({
        nodeId: "urn:node:MINE",
        nodeCert: cert.certFile,
        nodeKey: cert.keyFile,
      });
      assert.equal(fromCert.nodeSubject, "CN=urn:node:CERTMN,DC=dataone,DC=org");
      const explicit = resolveConfig({
        nodeSubject: "CN=x,DC=y",
        nodeCert: cert.certFile,
        nodeKey: cert.keyFile,
      });
      assert.equal(explicit.nodeSubject, "CN=x,DC=y");
      assert.throws(() => resolveConfig({ nodeCert: cert.certFile }), /nodeCert.*nodeKey/);
      assert.throws(() => resolveConfig({ nodeCert: pki.dir, nodeKey: cert.keyFile }), /nodeCert/);
      assert.throws(() => resolveConfig({ nodeTokens: "sometimes" }), /nodeTokens/);
    } finally {
      pki.close();
    }
  });
});
