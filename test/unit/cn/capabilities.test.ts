/**
 * The cn role's configuration and Node document: base path /cn by default (an explicit one wins), the Node is
 * type cn with the services served per version, valid against the XSDs in v1 and v2.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { resolveConfig } from "../../../src/config/config.ts";
import type { NodeContext } from "../../../src/context/node-context.ts";
import { cnCapabilities } from "../../../src/services/cn/nodes.ts";
import { serializeNode } from "../../../src/types/index.ts";
import { validateXml } from "../../helpers/validation/xmllint.ts";

describe("cn role", () => {
  it("serves at /cn unless a base path is given; the mn role keeps /mn", () => {
    assert.equal(resolveConfig({ role: "cn" }).basePath, "/cn");
    assert.equal(resolveConfig({ role: "cn" }).baseUrl, "http://127.0.0.1:8080/cn");
    assert.equal(resolveConfig({ role: "cn", basePath: "/coordinator" }).basePath, "/coordinator");
    assert.equal(resolveConfig({}).basePath, "/mn");
    assert.equal(resolveConfig({}).role, "mn");
  });

  it("describes itself as a CN: services per version, valid v1 and v2 documents", async () => {
    const config = resolveConfig({ role: "cn", nodeId: "urn:node:UNITCN" });
    const node = cnCapabilities({ config } as NodeContext);
    assert.equal(node.type, "cn");
    const names = (version: string) => node.services.filter((s) => s.version === version).map((s) => s.name);
    assert.ok(names("v2").includes("CNDiagnostic"));
    assert.ok(!names("v1").includes("CNDiagnostic"));
    for (const name of ["CNCore", "CNRead", "CNAuthorization", "CNIdentity", "CNReplication", "CNRegister"]) {
      assert.ok(names("v1").includes(name) && names("v2").includes(name), name);
    }
    await validateXml(serializeNode(node, "v1"));
    await validateXml(serializeNode(node, "v2"));
  });
});
