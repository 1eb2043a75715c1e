/**
 * Landing pages machines read: the default view's schema.org JSON-LD (SOSO SHACL shapes, extruct), content
 * negotiation on the landing URL, and FAIR Signposting (Link headers capped, linksets per RFC 9264).
 */
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { after, before, describe, it } from "node:test";
import LinkHeader from "http-link-header";
import { type Caller, call, create, enc, update } from "../../helpers/clients/client.ts";
import { RESOURCE_MAP_FORMAT, resourceMapXml } from "../../helpers/data/resource-map.ts";
import { uniquePid } from "../../helpers/data/sysmeta.ts";
import { ADMIN, startTestNode, type TestNode, testDialects } from "../../helpers/nodes/node.ts";
import { validateDatacite } from "../../helpers/validation/datacite-xsd.ts";
import { extructJsonLd } from "../../helpers/validation/extruct.ts";
import { shaclFindings } from "../../helpers/validation/shacl.ts";

const EML = "https://eml.ecoinformatics.org/eml-2.2.0";

/** The fields of a landing page's schema.org Dataset these tests read. */
interface DatasetLd {
  identifier: { url: string };
  creator: { "@list": { "@id"?: string }[] };
  keywords: string[];
  temporalCoverage: string[];
  spatialCoverage: { geo: { box: string } }[];
  license: string;
  version: string;
  isBasedOn: { "@id": string };
  includedInDataCatalog: { "@type": string };
  distribution: {
    name: string;
    contentUrl: string;
    contentSize: string;
    "spdx:checksum": { "spdx:checksumValue": string };
  }[];
}
const fixture = (data: string) =>
  Buffer.from(
    readFileSync(new URL("../../fixtures/landing/eml-rich.xml", import.meta.url), "utf8").replace(
      "DATA_PID",
      data,
    ),
  );

for (const dialect of testDialects()) {
  describe(`landing pages (${dialect})`, () => {
    let node: TestNode;
    let admin: Caller;
    let anon: Caller;
    const first = uniquePid("eml");
    const metadata = `doi:10.5072/FK2${uniquePid("x").replace(/[^A-Za-z0-9]/g, "")}`;
    const sid = uniquePid("series");
    const data = uniquePid("csv");
    const map = uniquePid("map");
    const many = uniquePid("many-eml");
    const manyMap = uniquePid("many-map");
    const manyData = Array.from({ length: 25 }, (_, i) => uniquePid(`file${i}`));

    const ok = async (response: Promise<Response>) => {
      const r = await response;
      assert.equal(r.status, 200, await r.text());
    };
    const page = (pid: string, accept?: string) =>
      call(anon, "GET", `/views/default/${enc(pid)}`, accept ? { headers: { accept } } : {});

    before(async () => {
      node = await startTestNode(dialect);
      admin = { baseUrl: node.baseUrl, token: await node.token(ADMIN) };
      anon = { baseUrl: node.baseUrl };
      await ok(create(admin, first, fixture(data), { formatId: EML, seriesId: sid }));
      await ok(update(admin, first, metadata, fixture(data), { formatId: EML, seriesId: sid }));
      await ok(create(admin, data, Buffer.from("time,temp\n"), { fileName: "temperatures.csv" }));
      await ok(
        create(admin, map, Buffer.from(resourceMapXml(map, metadata, [data])), {
          formatId: RESOURCE_MAP_FORMAT,
        }),
      );
      await ok(create(admin, many, fixture("none"), { formatId: EML }));
      for (const pid of manyData) await ok(create(admin, pid, Buffer.from(pid), { fileName: `${pid}.txt` }));
      await ok(
        create(admin, manyMap, Buffer.from(resourceMapXml(manyMap, many, manyData)), {
          formatId: RESOURCE_MAP_FORMAT,
        }),
      );
    });
    after(() => node.close());

    it("the HTML page carries a Dataset in JSON-LD that extruct extracts", async () => {
      const response = await page(metadata);
      assert.equal(response.status, 200);
      assert.equal(response.headers.get("content-type"), "text/html; charset=utf-8");
      assert.equal(response.headers.get("vary"), "Accept");
      const html = await response.text();
      const [dataset, ...more] = extructJsonLd(html, node.baseUrl) as Record<string, unknown>[];
      assert.equal(more.length, 0);
      assert.equal(dataset?.["@type"], "Dataset");
      assert.equal(dataset?.name, "Water temperature of Lake Ontiki, 2019-2021");
      assert.equal(dataset?.url, `${node.baseUrl}/v2/views/default/${encodeURIComponent(metadata)}`);
    });

    it("the JSON-LD: DOI, ORCIDs, coverage, distribution with checksums, license, version chain", async () => {
      const response = await page(metadata, "application/ld+json");
      assert.equal(response.status, 200);
      assert.match(response.headers.get("content-type") ?? "", /^application\/ld\+json(;|$)/);
      const ld = (await response.json()) as DatasetLd;
      assert.equal(ld.identifier.url, `https://doi.org/${metadata.slice(4)}`);
      assert.deepEqual(
        ld.creator["@list"].map((c) => c["@id"]),
        ["https://orcid.org/0000-0002-1825-0097", "https://orcid.org/0000-0001-5109-3700", undefined],
      );
      assert.deepEqual(ld.keywords, ["limnology", "water temperature"]);
      assert.deepEqual(ld.temporalCoverage, ["2019-05-01/2021-10-31"]);
      assert.equal(ld.spatialCoverage[0]?.geo.box, "43.08 -89.41 43.10 -89.38");
      assert.equal(ld.license, "https://spdx.org/licenses/CC0-1.0");
      assert.equal(ld.version, "2");
      assert.equal(ld.isBasedOn["@id"], `${node.baseUrl}/v2/views/default/${encodeURIComponent(first)}`);
      assert.equal(ld.includedInDataCatalog["@type"], "DataCatalog");
      const csv = ld.distribution.find((d) => d.name === "temperatures.csv");
      assert.ok(csv, JSON.stringify(ld.distribution));
      assert.equal(csv.contentUrl, `${node.baseUrl}/v2/object/${encodeURIComponent(data)}`);
      assert.equal(csv.contentSize, "10 B");
      assert.match(csv["spdx:checksum"]["spdx:checksumValue"], /^[0-9a-f]{40}$/);
    });

    for (const shapes of ["googleRequired.ttl", "googleRecommended.ttl", "soso_common_v1.2.3.ttl"]) {
      it(`the JSON-LD passes ${shapes}`, async () => {
        const ld = await (await page(metadata, "application/ld+json")).json();
        assert.deepEqual(await shaclFindings(ld, shapes), []);
      });
    }

    it("content negotiation: the EML itself in its media type, 406 when nothing fits, HTML for */*", async () => {
      const eml = await page(metadata, "text/xml");
      assert.equal(eml.status, 200);
      assert.match(eml.headers.get("content-type") ?? "", /^text\/xml/);
      assert.match(await eml.text(), /<shortName>ontiki-temperature<\/shortName>/);
      const none = await page(metadata, "image/png");
      assert.equal(none.status, 406);
      assert.equal(none.headers.get("vary"), "Accept");
      assert.match(await none.text(), /application\/ld\+json/);
      const any = await page(metadata, "*/*");
      assert.match(any.headers.get("content-type") ?? "", /^text\/html/);
      const prefer = await page(metadata, "text/html;q=0.5, application/ld+json");
      assert.match(prefer.headers.get("content-type") ?? "", /^application\/ld\+json(;|$)/);
    });

    it("content negotiation: DataCite XML of a DOI (valid kernel 4.6) and its describedby; none for other PIDs", async () => {
      const datacite = await page(metadata, "application/vnd.datacite.datacite+xml");
      assert.equal(datacite.status, 200);
      const xml = await datacite.text();
      await validateDatacite(xml);
      assert.match(xml, new RegExp(`<identifier identifierType="DOI">${metadata.slice(4)}</identifier>`));
      const links = LinkHeader.parse((await page(metadata)).headers.get("link") ?? "");
      assert.ok(links.rel("describedby").some((l) => l.type === "application/vnd.datacite.datacite+xml"));
      assert.equal((await page(first, "application/vnd.datacite.datacite+xml")).status, 406);
    });

    it("the DOI's citation names the repository; the page's own JSON-LD, stored as SOSO metadata, gives its DataCite record", async () => {
      const html = await (await page(metadata)).text();
      const citation = /<p class="citation">(.*?)<a href/s.exec(html)?.[1] ?? "";
      assert.ok(citation.endsWith(`. ${node.node.ctx.config.nodeName}. `), citation);
      const jsonLd = Buffer.from(await (await page(metadata, "application/ld+json")).text());
      const soso = `doi:10.5072/FK2${uniquePid("soso").replace(/[^A-Za-z0-9]/g, "")}`;
      await ok(create(admin, soso, jsonLd, { formatId: "science-on-schema.org/Dataset;ld+json" }));
      const response = await page(soso, "application/vnd.datacite.datacite+xml");
      assert.equal(response.status, 200);
      const xml = await response.text();
      await validateDatacite(xml);
      assert.match(
        xml,
        /<nameIdentifier nameIdentifierScheme="ORCID"[^>]*>https:\/\/orcid\.org\/0000-0002-1825-0097</,
      );
      assert.match(xml, /<rights [^>]*rightsIdentifier="CC0-1\.0"/);
      const title = JSON.parse(jsonLd.toString("utf8")).name as string;
      assert.ok(xml.includes(`<title>${title}</title>`), xml);
      const sosoPage = await (await page(soso)).text();
      const sosoCitation = /<p class="citation">(.*?)<a href/s.exec(sosoPage)?.[1] ?? "";
      assert.ok(sosoCitation.includes(`. ${title}. ${node.node.ctx.config.nodeName}. `), sosoCitation);
    });

    it("level 1 signposts: cite-as, describedby, type, license, author, item and linkset parse", async () => {
      const links = LinkHeader.parse((await page(metadata)).headers.get("link") ?? "");
      assert.equal(links.rel("cite-as")[0]?.uri, `https://doi.org/${metadata.slice(4)}`);
      assert.deepEqual(
        links.rel("type").map((l) => l.uri),
        ["https://schema.org/AboutPage", "https://schema.org/Dataset"],
      );
      assert.deepEqual(
        links.rel("author").map((l) => l.uri),
        ["https://orcid.org/0000-0002-1825-0097", "https://orcid.org/0000-0001-5109-3700"],
      );
      const described = links.rel("describedby").map((l) => l.type);
      assert.ok(described.includes("text/xml") && described.includes("application/ld+json"));
      assert.equal(links.rel("license")[0]?.uri, "https://spdx.org/licenses/CC0-1.0");
      assert.ok(links.rel("item").some((l) => l.uri.endsWith(`/object/${encodeURIComponent(data)}`)));
      assert.deepEqual(
        links.rel("linkset").map((l) => l.type),
        ["application/linkset+json", "application/linkset"],
      );
    });

    it("past 20 files the Link header keeps 10 items; the linkset has them all, as JSON and as text", async () => {
      const response = await page(many);
      const items = LinkHeader.parse(response.headers.get("link") ?? "").rel("item");
      assert.equal(items.length, 10);
      const linkset = LinkHeader.parse(response.headers.get("link") ?? "").rel("linkset")[0]?.uri ?? "";
      const json = await fetch(linkset);
      assert.equal(json.status, 200);
      assert.match(json.headers.get("content-type") ?? "", /^application\/linkset\+json(;|$)/);
      const body = (await json.json()) as { linkset: Record<string, unknown>[] };
      assert.deepEqual(Object.keys(body), ["linkset"]);
      const landing = body.linkset[0] as { anchor: string; item: { href: string }[] };
      assert.equal(landing.anchor, `${node.baseUrl}/v2/views/default/${encodeURIComponent(many)}`);
      assert.equal(landing.item.length, 26); // 25 files and the package's zip
      const text = await fetch(linkset, { headers: { accept: "application/linkset" } });
      assert.match(text.headers.get("content-type") ?? "", /^application\/linkset(;|$)/);
      const parsed = LinkHeader.parse((await text.text()).replace(/\n/g, ""));
      assert.equal(parsed.rel("item").length, 26);
      assert.ok(parsed.refs.every((l) => typeof l.anchor === "string"));
      const refused = await fetch(linkset, { headers: { accept: "text/csv" } });
      assert.equal(refused.status, 406);
    });

    it("an object's bytes carry Link headers to their landing page and linkset", async () => {
      const response = await call(anon, "GET", `/object/${enc(data)}`);
      assert.equal(response.status, 200);
      const links = LinkHeader.parse(response.headers.get("link") ?? "");
      assert.equal(
        links.rel("collection")[0]?.uri,
        `${node.baseUrl}/v2/views/default/${encodeURIComponent(data)}`,
      );
      assert.equal(links.rel("linkset")[0]?.uri, `${node.baseUrl}/linksets/${encodeURIComponent(data)}`);
    });
  });
}
