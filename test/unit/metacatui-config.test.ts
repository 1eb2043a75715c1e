/** MetacatUI's config.js made from the node's settings: alone, with a provider, and in a federation. */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { metacatUiConfigScript, metacatUiSettings } from "../../src/http/routes/website/metacatui-config.ts";

const NODE = {
  baseUrl: "https://repo.example.org/mn",
  basePath: "/mn",
  nodeName: "Example Repository",
  nodeId: "urn:node:EXAMPLE",
  oidcProviders: [],
  cnBaseUrl: undefined,
};
const PROVIDER = { name: "orcid", issuer: "https://orcid.org", clientId: "APP-1" } as never;

describe("MetacatUI's config.js", () => {
  it("a lone node with a provider is its own CN and sign-in", () => {
    const settings = metacatUiSettings({ ...NODE, oidcProviders: [PROVIDER] });
    assert.equal(settings.baseUrl, "https://repo.example.org");
    assert.equal(settings.d1Service, "/mn/v2");
    assert.equal(settings.context, "");
    assert.equal(settings.d1CNBaseUrl, "https://repo.example.org/mn");
    assert.equal(settings.d1CNService, "/cn/v2");
    assert.equal(settings.tokenUrl, null, "null: MetacatUI fills in {d1CNBaseUrl}/portal/token");
    assert.equal(settings.repositoryName, "Example Repository");
    assert.equal(
      settings.metricsUrl,
      "https://repo.example.org/mn/usage/metrics",
      "the node's usage metrics",
    );
    assert.equal(settings.displayDatasetMetrics, true);
    assert.equal(settings.displayDatasetCitationMetric, false, "the node knows no citations");
  });

  it("without a provider or CN there is no sign-in (no token calls)", () => {
    const settings = metacatUiSettings(NODE);
    assert.equal(settings.tokenUrl, undefined);
    assert.equal(settings.signInUrlOrcid, undefined);
    assert.match(metacatUiConfigScript(NODE), /^ {2}tokenUrl: undefined,$/m);
  });

  it("a node in a federation names its CN", () => {
    const settings = metacatUiSettings({ ...NODE, cnBaseUrl: "https://cn.example.org/cn" });
    assert.equal(settings.d1CNBaseUrl, "https://cn.example.org/cn");
    assert.equal(settings.d1CNService, "/v2");
    assert.equal(settings.tokenUrl, null);
  });

  it("names are JSON-escaped in the script", () => {
    const script = metacatUiConfigScript({ ...NODE, nodeName: 'A "quoted" </script> name' });
    assert.match(script, /repositoryName: "A \\"quoted\\" <\/script> name",/);
  });
});
