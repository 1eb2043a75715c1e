import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { type D1Error, InvalidSystemMetadata } from "../../../src/errors/exceptions.ts";
import { parseSystemMetadata, serializeSystemMetadata } from "../../../src/types/index.ts";
import { validateXml } from "../../helpers/validation/xmllint.ts";
import { fullSysmeta, minimalSysmeta, sample, sysmetaDoc, trickyIdentifiers } from "./fixtures.ts";

const V1 = "http://ns.dataone.org/service/types/v1";

/** Asserts InvalidSystemMetadata whose description matches `pattern`. */
function rejects(xml: string | Buffer, pattern: RegExp): void {
  assert.throws(
    () => {
      const parsed = parseSystemMetadata(xml);
      assert.fail(
        `accepted (expected ${pattern}): ${xml.toString().slice(0, 300)} -> ${JSON.stringify(parsed)}`,
      );
    },
    (error: unknown) => {
      if (error instanceof assert.AssertionError) throw error;
      assert.ok(error instanceof InvalidSystemMetadata, String(error));
      assert.match((error as D1Error).description, pattern);
      return true;
    },
  );
}

describe("serializeSystemMetadata", () => {
  for (const version of ["v1", "v2"] as const) {
    it(`full and minimal ${version} documents are schema-valid`, async () => {
      await validateXml(serializeSystemMetadata(fullSysmeta(), version));
      await validateXml(serializeSystemMetadata(minimalSysmeta(), version));
    });
  }

  it("v1 leaves out seriesId, mediaType and fileName; v2 uses the v2.0 namespace", () => {
    const v1 = serializeSystemMetadata(fullSysmeta(), "v1");
    assert.match(
      v1,
      /^<\?xml version="1.0" encoding="UTF-8"\?><d1:systemMetadata xmlns:d1="http:\/\/ns.dataone.org\/service\/types\/v1">/,
    );
    assert.doesNotMatch(v1, /seriesId|mediaType|fileName/);
    const v2 = serializeSystemMetadata(fullSysmeta(), "v2");
    assert.match(
      v2,
      /<d1_v2.0:systemMetadata xmlns:d1_v2.0="http:\/\/ns.dataone.org\/service\/types\/v2.0">/,
    );
    assert.match(v2, /<replicationPolicy replicationAllowed="true" numberReplicas="3">/);
  });

  it("omits absent optional fields and an empty access policy", () => {
    const xml = serializeSystemMetadata(minimalSysmeta(), "v2");
    for (const name of [
      "serialVersion",
      "submitter",
      "accessPolicy",
      "replicationPolicy",
      "archived",
      "replica",
      "seriesId",
    ]) {
      assert.doesNotMatch(xml, new RegExp(`<${name}[ >]`), name);
    }
  });

  it("round-trips v2 fully and v1 without the v2 fields", () => {
    assert.deepEqual(parseSystemMetadata(serializeSystemMetadata(fullSysmeta(), "v2")), fullSysmeta());
    const { seriesId, mediaType, fileName, ...v1Fields } = fullSysmeta();
    assert.deepEqual(parseSystemMetadata(serializeSystemMetadata(fullSysmeta(), "v1")), v1Fields);
    assert.deepEqual(parseSystemMetadata(serializeSystemMetadata(minimalSysmeta(), "v1")), minimalSysmeta());
  });

  it("tricky identifiers round-trip and the documents stay valid", async () => {
    const rows = trickyIdentifiers();
    assert.ok(rows.length >= 39);
    for (const { description, identifier } of rows) {
      const sm = { ...minimalSysmeta(), identifier, obsoletes: identifier, seriesId: `${identifier}-sid` };
      const xml = serializeSystemMetadata(sm, "v2");
      assert.deepEqual(parseSystemMetadata(xml), sm, description);
      assert.deepEqual(parseSystemMetadata(Buffer.from(xml)), sm, description);
    }
    const sm = {
      ...minimalSysmeta(),
      identifier: rows
        .map((r) => r.identifier)
        .join("")
        .slice(0, 700),
    };
    await validateXml(serializeSystemMetadata(sm, "v2"));
  });
});

describe("parseSystemMetadata", () => {
  it("reads the v1 and v2 samples", () => {
    const v2 = parseSystemMetadata(sample("systemMetadata_v2.xml"));
    assert.equal(v2.identifier, "urn:uuid:3f0b6a2e-0000-4000-8000-000000000001");
    assert.equal(v2.seriesId, "series-1");
    assert.deepEqual(v2.mediaType, { name: "text/csv", properties: [{ name: "charset", value: "UTF-8" }] });
    assert.deepEqual(v2.accessPolicy, [{ subjects: ["public"], permissions: ["read"] }]);
    assert.deepEqual(v2.replicationPolicy, {
      replicationAllowed: true,
      numberReplicas: 2,
      preferredMemberNodes: ["urn:node:OTHER"],
      blockedMemberNodes: [],
    });
    assert.equal(v2.replicas[0]?.replicationStatus, "completed");
    assert.equal(v2.dateUploaded?.toISOString(), "2024-01-02T03:04:05.678Z");
    const v1 = parseSystemMetadata(sample("systemMetadata_v1.xml"));
    assert.equal(v1.serialVersion, 1);
    assert.equal(v1.size, 1024);
    assert.equal(v1.seriesId, undefined);
  });

  it("rejects the invalid sample", () => {
    rejects(sample("invalid/systemMetadata_v2_bad.xml"), /size|formatId|checksum/);
  });

  it("accepts any prefix and the default namespace; normalises the checksum to lower case", () => {
    const doc = sysmetaDoc();
    assert.equal(parseSystemMetadata(doc).checksum.value, "6f5902ac237024bdd0c176cb93063dc4");
    for (const prefix of ["d1", "d1_v2.0", "x"]) parseSystemMetadata(doc.replaceAll("ns1", prefix));
    parseSystemMetadata(doc.replace(/ns1:/g, "").replace("xmlns:ns1", "xmlns"));
    parseSystemMetadata(sysmetaDoc({}, V1));
  });

  for (const field of ["identifier", "formatId", "size", "checksum", "rightsHolder"]) {
    it(`names the missing required field ${field}`, () =>
      rejects(sysmetaDoc({ [field]: undefined }), new RegExp(`<${field}>`)));
  }

  it("rejects a root that is not systemMetadata in the v1 or v2.0 namespace", () => {
    rejects(sysmetaDoc({}, "http://ns.dataone.org/service/types/v1.1"), /systemMetadata/);
    rejects(
      sysmetaDoc()
        .replace(/ns1:/g, "")
        .replace(/ xmlns:ns1="[^"]*"/, ""),
      /no namespace/,
    );
    rejects(sysmetaDoc().replaceAll("systemMetadata", "objectList"), /systemMetadata/);
  });

  it("enforces the Identifier rules", () => {
    rejects(sysmetaDoc({ identifier: "<identifier>a b</identifier>" }), /identifier.*whitespace/);
    rejects(sysmetaDoc({ identifier: "<identifier>a\u00a0b</identifier>" }), /identifier.*U\+00A0/);
    rejects(sysmetaDoc({ identifier: "<identifier>a&#9;b</identifier>" }), /identifier/);
    rejects(sysmetaDoc({ identifier: "<identifier></identifier>" }), /identifier.*empty/);
    rejects(sysmetaDoc({ identifier: `<identifier>${"x".repeat(801)}</identifier>` }), /801 characters/);
    // 800 code points, 1600 UTF-16 units: allowed.
    const astral = "\u{1F600}".repeat(800);
    assert.equal(
      parseSystemMetadata(sysmetaDoc({ identifier: `<identifier>${astral}</identifier>` })).identifier,
      astral,
    );
    rejects(sysmetaDoc({ rest: "<obsoletes>x y</obsoletes>" }), /obsoletes/);
    rejects(sysmetaDoc({ rest: "<seriesId> </seriesId>" }), /seriesId/);
  });

  it("rejects bad values, naming the field", () => {
    const cases: [Record<string, string>, RegExp][] = [
      [{ size: "<size>-1</size>" }, /size.*non-negative/],
      [{ size: "<size>1.5</size>" }, /size/],
      [{ serialVersion: "<serialVersion>one</serialVersion>" }, /serialVersion/],
      [{ checksum: "<checksum>abc</checksum>" }, /checksum.*algorithm/],
      [{ checksum: '<checksum algorithm="MD5">xyz</checksum>' }, /checksum.*hexadecimal/],
      [{ checksum: '<checksum algorithm="SHA-1">abcd</checksum>' }, /checksum.*SHA-1/],
      [{ formatId: "<formatId> </formatId>" }, /formatId/],
      [{ rightsHolder: "<rightsHolder/>" }, /rightsHolder/],
      [
        {
          rest: "<accessPolicy><allow><subject>x</subject><permission>own</permission></allow></accessPolicy>",
        },
        /permission.*own/,
      ],
      [{ rest: "<accessPolicy></accessPolicy>" }, /allow/],
      [{ rest: "<accessPolicy><allow><permission>read</permission></allow></accessPolicy>" }, /subject/],
      [{ rest: '<replicationPolicy replicationAllowed="yes"/>' }, /replicationAllowed/],
      [{ rest: '<replicationPolicy numberReplicas="x"/>' }, /numberReplicas/],
      [{ rest: "<archived>maybe</archived>" }, /archived.*boolean/],
      [{ rest: "<dateUploaded>yesterday</dateUploaded>" }, /dateUploaded/],
      [{ rest: "<dateUploaded>2024-01-02</dateUploaded>" }, /dateUploaded/],
      [
        { rest: "<dateSysMetadataModified>2024-02-30T00:00:00Z</dateSysMetadataModified>" },
        /dateSysMetadataModified/,
      ],
      [
        {
          rest: "<replica><replicaMemberNode>n</replicaMemberNode><replicationStatus>done</replicationStatus><replicaVerified>2024-01-01T00:00:00Z</replicaVerified></replica>",
        },
        /replicationStatus/,
      ],
      [{ rest: "<replica><replicaMemberNode>n</replicaMemberNode></replica>" }, /replicationStatus/],
      [{ rest: "<color>blue</color>" }, /unknown element <color>/],
      [{ rest: "<d1:archived xmlns:d1='x'>true</d1:archived>" }, /unknown element <d1:archived>/],
      [{ rest: "<archived>true</archived><archived>true</archived>" }, /archived.*more often/],
      [{ rest: "<archived>true</archived><obsoletes>p</obsoletes>" }, /obsoletes.*out of order/],
      [{ rest: "<mediaType><property name='a'>b</property></mediaType>" }, /mediaType.*name/],
      [{ rest: "<fileName><b>x</b></fileName>" }, /fileName.*text only/],
      [{ rest: "stray text" }, /text/],
      [{ identifier: '<identifier lang="en">p</identifier>' }, /unknown attribute "lang"/],
    ];
    for (const [fields, pattern] of cases) rejects(sysmetaDoc(fields), pattern);
    rejects(sysmetaDoc({ rest: "<seriesId>s</seriesId>" }, V1), /unknown element <seriesId>/);
  });

  it("accepts the lexical variants XSD allows", () => {
    const sm = parseSystemMetadata(
      sysmetaDoc({
        size: "<size> 12 </size>",
        rest:
          "<archived>1</archived><dateUploaded>2024-01-02T04:04:05.123456+01:00</dateUploaded>" +
          "<dateSysMetadataModified>2024-01-02T03:04:05</dateSysMetadataModified><fileName> spaced name </fileName>",
      }),
    );
    assert.equal(sm.size, 12);
    assert.equal(sm.archived, true);
    assert.equal(sm.dateUploaded?.toISOString(), "2024-01-02T03:04:05.123Z");
    assert.equal(sm.dateSysMetadataModified?.toISOString(), "2024-01-02T03:04:05.000Z");
    assert.equal(sm.fileName, " spaced name ");
  });

  it("rejects DOCTYPE and entity declarations with InvalidSystemMetadata", () => {
    const doc = sysmetaDoc({ identifier: "<identifier>&xxe;</identifier>" });
    const withDoctype = doc.replace(
      "?>",
      '?><!DOCTYPE ns1:systemMetadata [<!ENTITY xxe SYSTEM "file:///etc/passwd">]>',
    );
    rejects(withDoctype, /DOCTYPE/);
    rejects(doc.replace("?>", "?><!DOCTYPE ns1:systemMetadata>").replace("&xxe;", "p"), /DOCTYPE/);
    rejects(doc, /reference "&xxe;"/);
    rejects(sysmetaDoc({ rest: "<!ENTITY a 'b'>" }), /entity/);
  });

  it("rejects documents that are not well-formed XML or not UTF-8", () => {
    rejects("", /root element|well-formed/);
    rejects("not xml", /well-formed|root/);
    rejects(sysmetaDoc().slice(0, -5), /well-formed/);
    rejects(sysmetaDoc({ identifier: "<identifier>a\u0001</identifier>" }), /U\+0001/);
    rejects(Buffer.concat([Buffer.from(sysmetaDoc()), Buffer.from([0xff])]), /UTF-8/);
    rejects(`${sysmetaDoc()}<second/>`, /well-formed|one root/);
  });
});
