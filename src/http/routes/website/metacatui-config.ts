/**
 * MetacatUI's `config/config.js` for a node that is its website's whole backend, made from the node's settings
 * (AppModel.js derives every service URL from these): the Member Node API at `baseUrl + d1Service`
 * (queryServiceUrl, objectServiceUrl, ...), the CN-shaped reads at `d1CNBaseUrl + d1CNService` and the sign-in
 * at `d1CNBaseUrl/portal/...`, where d1CNBaseUrl is the node's base URL, and the usage metrics at
 * `baseUrl/usage/metrics` (views and downloads; the node knows no citations, so that count is not shown).
 * Services a lone node does not have (groups, identity maps, the quality service) are left out so that MetacatUI
 * does not call them.
 */
import type { Config } from "../../../config/config.ts";

type WebsiteConfig = Readonly<
  Pick<Config, "baseUrl" | "basePath" | "nodeName" | "nodeId" | "oidcProviders" | "cnBaseUrl">
>;

/** The values MetacatUI's AppModel reads; `undefined` turns a service off (AppModel checks `typeof ... != "undefined"`). */
export function metacatUiSettings(config: WebsiteConfig): Record<string, unknown> {
  const base = new URL(config.baseUrl);
  const origin = base.origin;
  const nodeBase = `${origin}${base.pathname.replace(/\/+$/, "")}`;
  // A node in a federation (cnBaseUrl) names its CN, whose /portal and /v2 are under its base (a d1node CN).
  const cn = config.cnBaseUrl;
  const signIn = cn !== undefined || config.oidcProviders.some((p) => p.signIn !== false);
  return {
    root: "/",
    theme: "default",
    repositoryName: config.nodeName,
    nodeId: config.nodeId,
    baseUrl: nodeBase.slice(0, nodeBase.length - config.basePath.length) || origin,
    context: "",
    d1Service: `${config.basePath}/v2`,
    d1CNBaseUrl: cn ?? nodeBase,
    d1CNService: cn ? "/v2" : "/cn/v2",
    dataoneSearchUrl: origin,
    enableCILogonSignIn: signIn,
    signInUrl: signIn ? null : undefined,
    signInUrlOrcid: signIn ? null : undefined,
    tokenUrl: signIn ? null : undefined,
    accountsUrl: null,
    pendingMapsUrl: undefined,
    accountsMapsUrl: undefined,
    groupsUrl: undefined,
    d1LogServiceUrl: undefined,
    enableMonitorStatus: false,
    metricsUrl: `${nodeBase}/usage/metrics`,
    displayDatasetMetrics: true,
    displayDatasetCitationMetric: false,
    displayRepoMetrics: false,
    enableBookkeeperServices: false,
    mdqBaseUrl: undefined,
    showDatasetPublicToggle: true,
  };
}

/** The script: `MetacatUI.AppConfig = {...}` with `undefined` kept (JSON has none). */
export function metacatUiConfigScript(config: WebsiteConfig): string {
  const lines = Object.entries(metacatUiSettings(config)).map(
    ([key, value]) => `  ${key}: ${value === undefined ? "undefined" : JSON.stringify(value)},`,
  );
  return `MetacatUI.AppConfig = {\n${lines.join("\n")}\n};\n`;
}
