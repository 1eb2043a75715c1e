/** The base URL a node advertises against the address it binds: warned about unless a proxy forwards to it. */
import assert from "node:assert/strict";
import { test } from "node:test";
import { resolveConfig } from "../../src/config/config.ts";
import { advertisedAddressWarnings } from "../../src/node/advertised-address.ts";

test("a base URL implying another port, or a public host on loopback, is one line each", () => {
  const warnings = advertisedAddressWarnings(
    resolveConfig({ port: 8080, baseUrl: "https://cn.example.org/cn" }),
  );
  assert.equal(warnings.length, 2);
  assert.match(warnings[0] ?? "", /implies port 443 but the node listens on 8080: add --port 443/);
  assert.match(warnings[1] ?? "", /listens on 127\.0\.0\.1 only: add --host 0\.0\.0\.0/);
});

test("matching port and host, the default base URL, or a proxy in front: no warning", () => {
  const fine = { host: "0.0.0.0", port: 443, baseUrl: "https://cn.example.org/cn" };
  assert.deepEqual(advertisedAddressWarnings(resolveConfig(fine)), []);
  assert.deepEqual(advertisedAddressWarnings(resolveConfig({ port: 8080 })), []);
  const proxied = { port: 8080, baseUrl: "https://cn.example.org/cn", proxySecret: "0123456789abcdef" };
  assert.deepEqual(advertisedAddressWarnings(resolveConfig(proxied)), []);
});
