/**
 * The metacatui view's citation gives the year the document says the data were published (EML pubDate, ISO
 * 19139 publication date, FGDC pubdate), the upload year only when it says none; each entity block is labelled
 * with its kind ("Data Table", "Other Entity") and names the entity, not its identifier, as Metacat's stylesheet
 * does. Through a real node.
 */
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { after, before, describe, it } from "node:test";
import { type Caller, call, create, enc } from "../../helpers/clients/client.ts";
import { uniquePid } from "../../helpers/data/sysmeta.ts";
import { ADMIN, startTestNode, type TestNode } from "../../helpers/nodes/node.ts";

const fixture = (name: string) =>
  readFileSync(new URL(`../../fixtures/views/${name}`, import.meta.url), "utf8");
const EML = "eml://ecoinformatics.org/eml-2.1.1";
const ISO = "http://www.isotc211.org/2005/gmd";
const FGDC = "FGDC-STD-001-1998";
const ISO_PUBLICATION =
  '<gmd:date><gmd:CI_Date><gmd:date><gco:Date>2011-06-30</gco:Date></gmd:date><gmd:dateType><gmd:CI_DateTypeCode codeList="http://www.isotc211.org/2005/resources/Codelist/gmxCodelists.xml#CI_DateTypeCode" codeListValue="publication">publication</gmd:CI_DateTypeCode></gmd:dateType></gmd:CI_Date></gmd:date>';
const ISO_REVISION = ISO_PUBLICATION.replace(/publication/g, "revision").replace("2011-06-30", "2015-01-01");

/** The citation's text and each entity block's label and name, as a reader sees them. */
function readable(fragment: string): { citation: string; entities: string[] } {
  const plain = (html: string) => html.replace(/<[^>]+>/g, "").replace(/&nbsp;/g, " ");
  const citation = /<span id="viewMetadataCitationLink">(.*?)<\/span>/s.exec(fragment)?.[1] ?? "";
  const entities = [
    ...fragment.matchAll(
      /<div class="controls controls-well entitydetails" data-id="[^"]*"><label class="control-label">([^<]*)<\/label>\s*<div class="control-group"><label class="control-label">Entity Name<\/label><div class="controls controls-well"><strong class="entityName" data-entity-name="([^"]*)">/g,
    ),
  ].map((m) => `${m[1]}: ${m[2]}`);
  return { citation: plain(citation), entities };
}

describe("metacatui view citation and entity headings", () => {
  let node: TestNode;
  let admin: Caller;
  const year = String(new Date().getUTCFullYear());
  before(async () => {
    node = await startTestNode("sqlite");
    admin = { baseUrl: node.baseUrl, token: await node.token(ADMIN) };
  });
  after(() => node.close());

  const fragmentOf = async (text: string, formatId: string) => {
    const pid = uniquePid("cite");
    const created = await create(admin, pid, Buffer.from(text), { formatId });
    assert.equal(created.status, 200, await created.text());
    const response = await call(admin, "GET", `/views/metacatui/${enc(pid)}`);
    assert.equal(response.status, 200);
    return { pid, ...readable(await response.text()) };
  };

  it("EML: the year of pubDate, not of the upload", async () => {
    const eml = fixture("eml-lake.xml").replace("</title>", "</title><pubDate>2009-04-02</pubDate>");
    const { citation, pid } = await fragmentOf(eml, EML);
    assert.match(citation, /Water temperature of Lake Ontiki, 2019-2021\. 2009\. /);
    assert.ok(citation.endsWith(pid));
    if (year !== "2009") assert.ok(!citation.includes(`. ${year}.`), citation);
  });

  it("ISO 19139: the publication date, not a revision date", async () => {
    const iso = fixture("iso19139.xml").replace(
      "</gmd:title>",
      `</gmd:title>${ISO_REVISION}${ISO_PUBLICATION}`,
    );
    const { citation } = await fragmentOf(iso, ISO);
    assert.match(citation, /Sea ice extent, Beaufort Sea\. 2011\. /);
  });

  it("FGDC: pubdate", async () => {
    const fgdc = fixture("fgdc.xml").replace("<title>", "<pubdate>20120315</pubdate><title>");
    const { citation } = await fragmentOf(fgdc, FGDC);
    assert.match(citation, /Stream gauge heights, Oak Creek\. 2012\. /);
  });

  it("without a publication date the upload year stands in", async () => {
    const { citation } = await fragmentOf(fixture("eml-lake.xml"), EML);
    assert.match(citation, new RegExp(`2019-2021\\. ${year}\\. `));
  });

  it("an entity is labelled with its kind and named by its entityName, not its identifier", async () => {
    const other =
      "<otherEntity><entityName>site photos.zip</entityName><entityType>application/zip</entityType></otherEntity>";
    const eml = fixture("eml-lake.xml")
      .replace("DATA_PID", "entity-1")
      .replace("</dataset>", `${other}</dataset>`);
    const { entities } = await fragmentOf(eml, EML);
    const table = /<entityName>([^<]*)<\/entityName>/.exec(fixture("eml-lake.xml"))?.[1];
    assert.deepEqual(entities, [`Data Table: ${table}`, "Other Entity: site photos.zip"]);
  });
});
