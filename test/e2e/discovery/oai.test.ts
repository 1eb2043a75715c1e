/**
 * The OAI-PMH repository (src/oai/) on both databases: every verb and error the protocol names, oai_dc and
 * native EML records, the format-type and package sets, from/until, resumption tokens, deleted records of
 * archived and removed objects, GET and POST. Every answer is validated against the OAI-PMH schema.
 */
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { after, before, describe, it } from "node:test";
import { escapeSetPart } from "../../../src/oai/sets.ts";
import { encodeToken } from "../../../src/oai/tokens.ts";
import { type Caller, call, create, enc, okXml } from "../../helpers/clients/client.ts";
import { RESOURCE_MAP_FORMAT, resourceMapXml } from "../../helpers/data/resource-map.ts";
import { ADMIN, startTestNode, type TestNode, testDialects } from "../../helpers/nodes/node.ts";
import { eventually } from "../../helpers/time/eventually.ts";
import { errorCode, headersOf, oaiGet, oaiPost, tokenOf } from "../../helpers/validation/oai.ts";

const EML = "eml://ecoinformatics.org/eml-2.1.1";
const lake = readFileSync(new URL("../../fixtures/views/eml-lake.xml", import.meta.url));

for (const dialect of testDialects()) {
  describe(`OAI-PMH repository (${dialect})`, () => {
    let node: TestNode;
    let base: string;
    let admin: Caller;
    const ids = {
      data: "oai/data:1",
      metadata: "oai-meta",
      map: "oai-map",
      archived: "oai-archived",
      removed: "oai-removed",
      secret: "oai-secret",
    };

    before(async () => {
      node = await startTestNode(dialect);
      base = node.baseUrl;
      admin = { baseUrl: base, token: await node.token(ADMIN) };
      const put = async (pid: string, bytes: Buffer, options: Parameters<typeof create>[3] = {}) =>
        okXml(await create(admin, pid, bytes, options));
      await put(ids.data, Buffer.from("a,b\n1,2\n"));
      await put(ids.metadata, lake, { formatId: EML });
      await put(ids.map, Buffer.from(resourceMapXml(ids.map, ids.metadata, [ids.data])), {
        formatId: RESOURCE_MAP_FORMAT,
      });
      await put(ids.archived, Buffer.from("x"));
      await put(ids.removed, Buffer.from("y"));
      await put(ids.secret, Buffer.from("z"), { readers: ["CN=alice"] });
      await okXml(await call(admin, "PUT", `/archive/${enc(ids.archived)}`));
      await okXml(await call(admin, "DELETE", `/object/${enc(ids.removed)}`));
      // A list ends at the start of its first request's second: wait until every change is listed, and the map indexed.
      await eventually("all records listed with their package sets", async () => {
        const headers = headersOf(await oaiGet(base, "verb=ListIdentifiers&metadataPrefix=oai_dc"));
        const data = headers.find((h) => h.identifier === ids.data);
        return headers.length === 5 && data?.sets.includes(`package:${ids.map}`) ? true : undefined;
      });
    });
    after(() => node?.close());

    it("Identify describes the repository", async () => {
      const xml = await oaiGet(base, "verb=Identify");
      assert.match(xml, new RegExp(`<baseURL>${base}/oai</baseURL>`));
      assert.match(xml, /<deletedRecord>persistent<\/deletedRecord>/);
      assert.match(xml, /<granularity>YYYY-MM-DDThh:mm:ssZ<\/granularity>/);
      assert.match(xml, /<protocolVersion>2.0<\/protocolVersion>/);
    });

    it("ListIdentifiers lists public objects, archived and removed ones as deleted, not private ones", async () => {
      const headers = headersOf(await oaiGet(base, "verb=ListIdentifiers&metadataPrefix=oai_dc"));
      const byId = new Map(headers.map((h) => [h.identifier, h]));
      assert.deepEqual(
        [...byId.keys()].sort(),
        [ids.archived, ids.data, ids.map, ids.metadata, ids.removed].sort(),
      );
      assert.equal(byId.get(ids.archived)?.deleted, true);
      assert.equal(byId.get(ids.removed)?.deleted, true);
      assert.equal(byId.get(ids.data)?.deleted, false);
      assert.deepEqual(byId.get(ids.metadata)?.sets, ["formatType:METADATA", `package:${ids.map}`]);
      assert.deepEqual(byId.get(ids.map)?.sets, ["formatType:RESOURCE", `package:${ids.map}`]);
      assert.match(byId.get(ids.data)?.datestamp ?? "", /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    });

    it("ListRecords in oai_dc crosswalks EML; in eml-2.1.1 gives the document as stored", async () => {
      const dc = await oaiGet(base, "verb=ListRecords&metadataPrefix=oai_dc");
      assert.match(dc, /<dc:title>Water temperature of Lake Ontiki, 2019-2021<\/dc:title>/);
      assert.match(dc, /<dc:creator>Ada Limnos<\/dc:creator>/);
      const native = await oaiGet(base, "verb=ListRecords&metadataPrefix=eml-2.1.1", {
        embedded: "unchecked",
      });
      assert.deepEqual(
        headersOf(native).map((h) => h.identifier),
        [ids.metadata],
      );
      assert.match(native, /<metadata><eml:eml xmlns:eml="eml:\/\/ecoinformatics.org\/eml-2.1.1"/);
    });

    it("GetRecord gives one record, a deleted one as its header", async () => {
      const record = await oaiGet(
        base,
        `verb=GetRecord&metadataPrefix=oai_dc&identifier=${encodeURIComponent(ids.data)}`,
      );
      assert.match(record, /<dc:identifier>oai\/data:1<\/dc:identifier>/);
      const gone = await oaiGet(base, `verb=GetRecord&metadataPrefix=oai_dc&identifier=${ids.removed}`);
      assert.match(gone, /<header status="deleted">/);
      assert.doesNotMatch(gone, /<metadata>/);
      assert.equal(
        errorCode(await oaiGet(base, `verb=GetRecord&metadataPrefix=oai_dc&identifier=${ids.secret}`)),
        "idDoesNotExist",
      );
      assert.equal(
        errorCode(
          await oaiGet(
            base,
            `verb=GetRecord&metadataPrefix=eml-2.1.1&identifier=${encodeURIComponent(ids.data)}`,
          ),
        ),
        "cannotDisseminateFormat",
      );
    });

    it("ListMetadataFormats for the repository and for one item", async () => {
      const all = await oaiGet(base, "verb=ListMetadataFormats");
      assert.match(all, /<metadataPrefix>oai_dc<\/metadataPrefix>/);
      assert.match(all, /<metadataPrefix>eml-2.1.1<\/metadataPrefix>/);
      assert.match(all, /<metadataPrefix>oai_datacite<\/metadataPrefix>/);
      const item = await oaiGet(base, `verb=ListMetadataFormats&identifier=${ids.metadata}`);
      assert.deepEqual(
        [...item.matchAll(/<metadataPrefix>([^<]+)</g)].map((m) => m[1]),
        ["oai_dc", "eml-2.1.1"],
      );
      assert.equal(
        errorCode(await oaiGet(base, "verb=ListMetadataFormats&identifier=nothing")),
        "idDoesNotExist",
      );
    });

    it("ListSets and selective harvesting by set", async () => {
      const sets = await oaiGet(base, "verb=ListSets");
      for (const spec of [
        "formatType",
        "formatType:DATA",
        "formatType:METADATA",
        "formatType:RESOURCE",
        "package",
        `package:${ids.map}`,
      ])
        assert.match(sets, new RegExp(`<setSpec>${spec}</setSpec>`));
      const listed = async (set: string) =>
        headersOf(await oaiGet(base, `verb=ListIdentifiers&metadataPrefix=oai_dc&set=${set}`))
          .map((h) => h.identifier)
          .sort();
      assert.deepEqual(await listed("formatType:METADATA"), [ids.metadata]);
      assert.deepEqual(await listed("formatType:DATA"), [ids.archived, ids.data, ids.removed].sort());
      assert.deepEqual(
        await listed(`package:${escapeSetPart(ids.map)}`),
        [ids.data, ids.map, ids.metadata].sort(),
      );
      assert.equal(
        errorCode(await oaiGet(base, "verb=ListIdentifiers&metadataPrefix=oai_dc&set=nosuchset")),
        "noRecordsMatch",
      );
      assert.equal(escapeSetPart("doi:10.5063/F1~"), "doi~3A10.5063~2FF1~7E");
    });

    it("from and until select by datestamp, inclusive, in seconds or days", async () => {
      const [first] = headersOf(await oaiGet(base, "verb=ListIdentifiers&metadataPrefix=oai_dc"));
      const stamp = first?.datestamp as string;
      const count = async (query: string) => {
        const xml = await oaiGet(base, `verb=ListIdentifiers&metadataPrefix=oai_dc&${query}`);
        return errorCode(xml) ?? headersOf(xml).length;
      };
      assert.equal((await count(`until=${stamp}`)) !== "noRecordsMatch", true);
      assert.equal(await count("until=2000-01-01T00:00:00Z"), "noRecordsMatch");
      assert.equal(await count("from=2999-01-01"), "noRecordsMatch");
      assert.equal(await count(`from=${stamp.slice(0, 10)}`), 5);
      assert.equal(await count(`from=${stamp.slice(0, 10)}&until=${stamp}`), "badArgument");
      assert.equal(await count("from=2026-02-30"), "badArgument");
      assert.equal(await count("from=2026-01-01T00:00Z"), "badArgument");
    });

    it("names the protocol's errors", async () => {
      const code = async (query: string) => errorCode(await oaiGet(base, query));
      assert.equal(await code(""), "badVerb");
      assert.equal(await code("verb=Nope"), "badVerb");
      assert.equal(await code("verb=Identify&verb=Identify"), "badVerb");
      assert.equal(await code("verb=Identify&extra=1"), "badArgument");
      assert.equal(await code("verb=ListRecords"), "badArgument");
      assert.equal(await code("verb=ListRecords&metadataPrefix=oai_dc&metadataPrefix=oai_dc"), "badArgument");
      assert.equal(await code("verb=ListRecords&metadataPrefix=marc21"), "cannotDisseminateFormat");
      assert.equal(await code("verb=ListRecords&resumptionToken=garbage"), "badResumptionToken");
      assert.equal(await code("verb=ListRecords&resumptionToken=abc&metadataPrefix=oai_dc"), "badArgument");
      const expired = encodeToken({
        kind: "ListRecords",
        metadataPrefix: "oai_dc",
        until: Date.now(),
        after: [0, ""],
        cursor: 0,
        completeListSize: 1,
        expires: Date.now() - 1000,
      });
      assert.equal(await code(`verb=ListRecords&resumptionToken=${expired}`), "badResumptionToken");
      const forIdentifiers = encodeToken({
        kind: "ListIdentifiers",
        metadataPrefix: "oai_dc",
        until: Date.now(),
        after: [0, ""],
        cursor: 0,
        completeListSize: 1,
        expires: Date.now() + 60_000,
      });
      assert.equal(await code(`verb=ListRecords&resumptionToken=${forIdentifiers}`), "badResumptionToken");
      assert.match(await oaiGet(base, "verb=Nope"), /<request>[^<]*<\/request>/);
      assert.equal(
        await code("verb=GetRecord&metadataPrefix=oai_dc&identifier=a%25zz%23b%23c"),
        "idDoesNotExist",
      );
    });

    it("a resumption token continues a list from its last record, with the list's size", async () => {
      const tokenXml = await oaiGet(
        base,
        `verb=ListIdentifiers&resumptionToken=${encodeToken({
          kind: "ListIdentifiers",
          metadataPrefix: "oai_dc",
          until: Date.now(),
          after: [0, ""],
          cursor: 2,
          completeListSize: 7,
          expires: Date.now() + 60_000,
        })}`,
      );
      assert.equal(headersOf(tokenXml).length, 5);
      assert.match(tokenXml, /<resumptionToken completeListSize="7" cursor="2"><\/resumptionToken>/);
      assert.equal(tokenOf(tokenXml), "");
    });

    it("answers POSTed forms as GET", async () => {
      const xml = await oaiPost(base, {
        verb: "ListIdentifiers",
        metadataPrefix: "oai_dc",
        set: "formatType:METADATA",
      });
      assert.deepEqual(
        headersOf(xml).map((h) => h.identifier),
        [ids.metadata],
      );
    });

    it("disseminates oai_datacite for a metadata object whose PID is a DOI, and only for those", async () => {
      const doi = "doi:10.5072/OAI-1";
      await okXml(await create(admin, doi, lake, { formatId: EML }));
      const item = await oaiGet(base, `verb=ListMetadataFormats&identifier=${enc(doi)}`);
      assert.deepEqual(
        [...item.matchAll(/<metadataPrefix>([^<]+)</g)].map((m) => m[1]),
        ["oai_dc", "oai_datacite", "eml-2.1.1"],
      );
      const record = await oaiGet(base, `verb=GetRecord&metadataPrefix=oai_datacite&identifier=${enc(doi)}`);
      assert.match(record, /<metadata><resource xmlns="http:\/\/datacite.org\/schema\/kernel-4"/);
      assert.match(record, /<identifier identifierType="DOI">10.5072\/OAI-1<\/identifier>/);
      assert.equal(
        errorCode(
          await oaiGet(base, `verb=GetRecord&metadataPrefix=oai_datacite&identifier=${ids.metadata}`),
        ),
        "cannotDisseminateFormat",
      );
    });
  });
}
