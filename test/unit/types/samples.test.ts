import assert from "node:assert/strict";
import { readdirSync } from "node:fs";
import { describe, it } from "node:test";
import { lintXml, schemaFor, validateXml } from "../../helpers/validation/xmllint.ts";
import { SCHEMA_SAMPLES, sample } from "./fixtures.ts";

describe("xmllint helper on the schema samples", () => {
  it("picks the schema from the root namespace", () => {
    assert.equal(schemaFor(sample("node_v2.xml")), "dataoneTypes_v2.0.xsd");
    assert.equal(schemaFor(sample("objectList_v1.xml")), "dataoneTypes.xsd");
    assert.equal(schemaFor(sample("queryEngineList_v1.1.xml")), "dataoneTypes_v1.1.xsd");
    assert.equal(schemaFor(sample("error_NotFound.xml")), "dataoneErrors.xsd");
    assert.equal(
      schemaFor(
        '<?xml version="1.0"?><!-- <x:y> --><systemMetadata xmlns="http://ns.dataone.org/service/types/v1"/>',
      ),
      "dataoneTypes.xsd",
    );
  });

  it("the valid samples validate and the invalid ones do not", async () => {
    const valid = readdirSync(SCHEMA_SAMPLES).filter((f) => f.endsWith(".xml"));
    assert.ok(valid.length >= 9);
    for (const name of valid) await validateXml(sample(name));
    for (const name of readdirSync(`${SCHEMA_SAMPLES}invalid`)) {
      const result = await lintXml(sample(`invalid/${name}`));
      assert.equal(result.valid, false, name);
      assert.match(result.messages, /fails to validate/);
    }
  });
});
