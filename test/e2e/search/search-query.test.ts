/**
 * MNQuery over a real listening node, on SQLite and PostgreSQL: objects created through MNStorage are
 * searchable when create returns; the Solr parameters MetacatUI sends (search page with facets, dataset page,
 * package table) get the answers it reads; access and archived filtering; wt=xml; errors.
 */
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { before, describe, it } from "node:test";
import { type Caller, call, create, enc, update, updateSysmeta } from "../../helpers/clients/client.ts";
import { editSysmeta, uniquePid } from "../../helpers/data/sysmeta.ts";
import { ADMIN, testDialects, withTestNode } from "../../helpers/nodes/node.ts";
import { validateXml } from "../../helpers/validation/xmllint.ts";

const USER = "CN=Search User,DC=example,DC=org";
const OTHER = "CN=Other User,DC=example,DC=org";
const fixture = (name: string) => readFileSync(new URL(`../../fixtures/search/${name}`, import.meta.url));
const EML210 = "eml://ecoinformatics.org/eml-2.1.0";
const EML220 = "https://eml.ecoinformatics.org/eml-2.2.0";

interface SolrJson {
  responseHeader: { status: number; params: Record<string, string | string[]> };
  response: { numFound: number; start: number; docs: Record<string, unknown>[] };
  facet_counts?: {
    facet_fields: Record<string, (string | number)[]>;
    facet_queries: Record<string, number>;
    facet_ranges: Record<string, { counts: (string | number)[] }>;
  };
  stats?: { stats_fields: Record<string, Record<string, unknown>> };
  grouped?: Record<string, { matches: number; groups: { groupValue: string | null }[] }>;
}

for (const dialect of testDialects()) {
  describe(`MNQuery solr (${dialect})`, () => {
    const node = withTestNode(dialect);
    let user: Caller;
    let other: Caller;
    let anon: Caller;
    let admin: Caller;
    const tag = uniquePid("s").replace(/[^a-z0-9]/gi, "");
    const emlPid = `${tag}-eml210`;
    const eml220Pid = `${tag}-eml220`;
    const isoPid = `${tag}-iso`;
    const fgdcPid = `${tag}-fgdc`;
    const dcPid = `${tag}-dc`;
    const jsonPid = `${tag}-jsonld`;
    const dataPid = `${tag}-data`;
    const privatePid = `${tag}-private`;

    const solr = async (c: Caller, query: string): Promise<SolrJson> => {
      const response = await call(c, "GET", `/query/solr/?${query}`);
      assert.equal(response.status, 200, await response.clone().text());
      assert.match(response.headers.get("content-type") ?? "", /application\/json/);
      return (await response.json()) as SolrJson;
    };
    const ids = (r: SolrJson) => r.response.docs.map((d) => d.id as string).sort();

    before(async () => {
      user = { baseUrl: node.baseUrl, token: await node.token(USER) };
      other = { baseUrl: node.baseUrl, token: await node.token(OTHER) };
      admin = { baseUrl: node.baseUrl, token: await node.token(ADMIN) };
      anon = { baseUrl: node.baseUrl };
      const put = async (pid: string, file: string | Buffer, formatId: string, more = {}) => {
        const bytes = typeof file === "string" ? fixture(file) : file;
        const r = await create(user, pid, bytes, { formatId, rightsHolder: USER, ...more });
        assert.equal(r.status, 200, await r.text());
      };
      await put(emlPid, "eml-2.1.0-peggym.130.4.xml", EML210, { seriesId: `${tag}-series` });
      await put(eml220Pid, "eml-2.2.0-testdoc.xml", EML220);
      await put(isoPid, "iso19139-noaa.xml", "http://www.isotc211.org/2005/gmd");
      await put(fgdcPid, "fgdc-nasa-FEDGPS1293.xml", "FGDC-STD-001-1998");
      await put(dcPid, "oai-dc.xml", "http://www.openarchives.org/OAI/2.0/oai_dc/");
      await put(jsonPid, "schema-org-bco-dmo.jsonld", "science-on-schema.org/Dataset;ld+json");
      await put(dataPid, Buffer.from("a,b\n1,2\n"), "text/csv", { fileName: "data.csv" });
      await put(privatePid, "eml-2.2.0-testdoc.xml", EML220, { readers: [] });
    });

    it("lists the solr engine and describes it (valid XML)", async () => {
      const list = await call(anon, "GET", "/query");
      const listXml = await list.text();
      assert.equal(list.status, 200);
      assert.match(listXml, /<queryEngine>solr<\/queryEngine>/);
      await validateXml(listXml);
      const description = await call(anon, "GET", "/query/solr");
      const xml = await description.text();
      assert.equal(description.status, 200);
      assert.match(xml, /<queryField><name>abstract<\/name><type>text_general<\/type>/);
      await validateXml(xml);
      const unknown = await call(anon, "GET", "/query/nosuch");
      assert.equal(unknown.status, 404);
      assert.match(await unknown.text(), /detailCode="2814"/);
      const unknownQuery = await call(anon, "GET", "/query/nosuch/?q=*:*");
      assert.equal(unknownQuery.status, 404);
      assert.match(await unknownQuery.text(), /detailCode="2825"/);
    });

    it("indexes system metadata and EML fields at create", async () => {
      const r = await solr(anon, `q=id:"${emlPid}"&fl=*&wt=json`);
      assert.equal(r.response.numFound, 1);
      const doc = r.response.docs[0] as Record<string, unknown>;
      assert.equal(doc.title, "Augrabies falls National Park census data.");
      assert.equal(doc.formatType, "METADATA");
      assert.equal(doc.formatId, EML210);
      assert.equal(doc.seriesId, `${tag}-series`);
      assert.equal(doc.rightsHolder, USER);
      assert.equal(doc.isPublic, true);
      assert.equal(doc.archived, false);
      assert.deepEqual(doc.readPermission, ["public"]);
      assert.equal(doc.datasource, "urn:node:TESTMN");
      assert.equal(doc.authoritativeMN, "urn:node:TESTMN");
      assert.equal(doc.beginDate, "1998-01-01T00:00:00Z");
      assert.equal(doc.endDate, "2004-02-13T00:00:00Z");
      assert.equal(doc.northBoundCoord, 26);
      assert.equal(doc.westBoundCoord, -120.31121);
      assert.deepEqual(doc.origin, ["SANParks", "Gordon Freeman", "The Awesome Store"]);
      assert.ok((doc.keywords as string[]).includes("Census data"));
      assert.ok((doc.scientificName as string[]).includes("Diceros bicornis"));
      assert.ok((doc.attributeName as string[]).includes("SumOfTotal"));
      assert.match(String(doc.dateUploaded), /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$/);
      assert.equal(doc.size, fixture("eml-2.1.0-peggym.130.4.xml").length);
    });

    it("reads ISO, FGDC, Dublin Core and schema.org documents", async () => {
      const r = await solr(anon, `q=id:${tag}-*&fl=id,title,origin,northBoundCoord,pubDate&rows=50&wt=json`);
      const byId = new Map(r.response.docs.map((d) => [d.id as string, d]));
      assert.match(String(byId.get(isoPid)?.title), /NODC Accession 9900233/);
      assert.equal(byId.get(isoPid)?.northBoundCoord, 65.7);
      assert.match(String(byId.get(fgdcPid)?.title), /^Global Positioning System Ground Control Points/);
      assert.equal(byId.get(fgdcPid)?.pubDate, "1994-01-01T00:00:00Z");
      assert.deepEqual(byId.get(dcPid)?.origin, [
        "figshare admin Cary Institute (1246804)",
        "Jen Nieves (1725067)",
      ]);
      assert.equal((byId.get(jsonPid)?.origin as string[] | undefined)?.[0], "Nicola Kirby");
      assert.equal(byId.get(dataPid)?.title, undefined);
    });

    it("answers the MetacatUI search page query with facets (POST multipart, as MetacatUI sends it)", async () => {
      const body = new FormData();
      const q =
        `(-obsoletedBy:* AND formatType:METADATA AND -formatId:*dataone.org\\/collections* AND ` +
        `-formatId:*dataone.org\\/portals*) AND id:${tag}*`;
      body.append("q", q);
      body.append("rows", "25");
      body.append("sort", "dateUploaded desc");
      body.append(
        "fl",
        "id,seriesId,title,origin,pubDate,dateUploaded,abstract,resourceMap,beginDate,endDate,read_count_i,geohash_9,datasource,isPublic,project,documents,label,logo,formatId,northBoundCoord,southBoundCoord,eastBoundCoord,westBoundCoord",
      );
      body.append("start", "0");
      body.append("wt", "json");
      body.append("facet", "true");
      for (const f of [
        "keywords",
        "origin",
        "family",
        "species",
        "genus",
        "kingdom",
        "phylum",
        "order",
        "class",
        "site",
        "attributeName",
        "attributeLabel",
        "geohash_1",
      ]) {
        body.append("facet.field", f);
      }
      body.append("facet.mincount", "1");
      body.append("facet.limit", "-1");
      body.append("facet.sort", "index");
      const response = await call(anon, "POST", "/query/solr/", { body });
      assert.equal(response.status, 200, await response.clone().text());
      const r = (await response.json()) as SolrJson;
      assert.equal(r.responseHeader.params.q, q, "MetacatUI compares the echoed q with the one it sent");
      assert.deepEqual(ids(r), [dcPid, emlPid, eml220Pid, fgdcPid, isoPid, jsonPid].sort());
      const dates = r.response.docs.map((d) => String(d.dateUploaded));
      assert.deepEqual(dates, [...dates].sort().reverse(), "sorted by dateUploaded desc");
      const facets = r.facet_counts?.facet_fields ?? {};
      const keywords = facets.keywords ?? [];
      assert.ok(keywords.length > 0 && keywords.length % 2 === 0, "flat value/count array");
      const at = keywords.indexOf("Census data");
      assert.equal(keywords[at + 1], 1);
      const values = keywords.filter((_, i) => i % 2 === 0) as string[];
      assert.deepEqual(values, [...values].sort(), "facet.sort=index");
      assert.ok((facets.genus ?? []).includes("Diceros"));
      assert.deepEqual(facets.geohash_1?.filter((_, i) => i % 2 === 0).sort(), ["9", "e", "f"]);
      assert.equal(facets.geohash_1?.[facets.geohash_1.indexOf("e") + 1], 2);
    });

    it("answers the MetacatUI dataset page and package table queries", async () => {
      const fl =
        "abstract,id,seriesId,fileName,resourceMap,formatType,formatId,obsoletedBy,isDocumentedBy,documents,title,origin,keywords,attributeName,pubDate,eastBoundCoord,westBoundCoord,northBoundCoord,southBoundCoord,beginDate,endDate,dateUploaded,archived,datasource,replicaMN,isAuthorized,isPublic,size,read_count_i,isService,serviceTitle,serviceEndpoint,serviceOutput,serviceDescription,serviceType,project,dateModified";
      const page = await solr(
        anon,
        `q=${encodeURIComponent(`(id:"${emlPid}" OR seriesId:"${emlPid}")`)}&fl=${fl}&wt=json&rows=1000&archived=archived:*`,
      );
      assert.deepEqual(ids(page), [emlPid]);
      const bySeries = await solr(
        anon,
        `q=${encodeURIComponent(`seriesId:"${tag}-series" -obsoletedBy:*`)}&fl=id&wt=json`,
      );
      assert.deepEqual(ids(bySeries), [emlPid]);
      const member = await solr(
        anon,
        `fl=resourceMap,fileName,read:read_count_i,obsoletedBy,size,formatType,formatId,id,datasource,title,origin,pubDate,dateUploaded,isPublic,isService,serviceTitle,serviceEndpoint,serviceOutput,serviceDescription&rows=1&q=id:%22${encodeURIComponent(dataPid)}%22&wt=json`,
      );
      assert.equal(member.response.docs[0]?.fileName, "data.csv");
      assert.equal(member.response.docs[0]?.formatType, "DATA");
      assert.equal(
        member.response.docs[0]?.resourceMap,
        undefined,
        "no package: MetacatUI shows the object alone",
      );
      const table = await solr(
        anon,
        `fl=resourceMap,fileName,obsoletes,obsoletedBy,size,formatType,formatId,id,datasource,rightsHolder,dateUploaded,archived,title,origin,prov_instanceOfClass,isDocumentedBy,isPublic&rows=1000&q=%28resourceMap:%22${tag}-map%22%20OR%20id:%22${encodeURIComponent(dataPid)}%22%29&wt=json`,
      );
      assert.deepEqual(ids(table), [dataPid]);
    });

    it("filters by the caller's subjects; administrators see everything", async () => {
      const q = `q=id:"${privatePid}"&wt=json`;
      assert.equal((await solr(anon, q)).response.numFound, 0);
      assert.equal((await solr(other, q)).response.numFound, 0);
      assert.equal((await solr(user, q)).response.numFound, 1);
      assert.equal((await solr(admin, q)).response.numFound, 1);
    });

    it("Lucene syntax: fields, phrases, wildcards, ranges, boolean operators, negation, escaping", async () => {
      const scope = `id:${tag}*`;
      const q = async (query: string) =>
        ids(await solr(anon, `q=${encodeURIComponent(`(${query}) AND ${scope}`)}&fl=id&rows=100&wt=json`));
      assert.deepEqual(await q("title:augrabies"), [emlPid]);
      assert.deepEqual(await q('title:"national park census"'), [emlPid]);
      assert.deepEqual(await q("title:Augrab*"), [emlPid]);
      assert.deepEqual(await q("keywords:Census*"), [emlPid]);
      assert.deepEqual(await q('keywords:"census data"'), [], "string fields are exact and case-sensitive");
      assert.deepEqual(await q("northBoundCoord:[60 TO 90]"), [isoPid]);
      assert.deepEqual(await q("northBoundCoord:{26 TO *]"), [fgdcPid, isoPid, jsonPid].sort());
      assert.deepEqual(
        await q("beginDate:[1998-01-01T00:00:00Z TO 1998-01-02T00:00:00Z]"),
        [emlPid, isoPid].sort(),
      );
      assert.deepEqual(await q("pubDate:[* TO 2015-01-01T00:00:00Z/YEAR]"), [fgdcPid, isoPid].sort());
      assert.deepEqual(await q("pubDate:[NOW-100YEARS TO NOW]"), [dcPid, fgdcPid, isoPid, jsonPid].sort());
      assert.deepEqual(await q("formatType:DATA OR fileName:data.csv"), [dataPid]);
      assert.deepEqual(await q("genus:Diceros AND NOT title:fish"), [emlPid]);
      assert.deepEqual(await q("formatType:METADATA -northBoundCoord:*"), [dcPid, eml220Pid].sort());
      assert.deepEqual(await q("+formatType:METADATA +origin:Jen*"), [dcPid]);
      assert.deepEqual(await q(`id:${tag}\\-data`), [dataPid]);
      assert.deepEqual(await q("augrabies OR kirby"), [emlPid, jsonPid].sort(), "default field text");
    });

    it("rows, start, sort and fl page the results", async () => {
      const base = `q=id:${tag}*&fl=id&sort=id+asc&wt=json`;
      const all = await solr(anon, `${base}&rows=100`);
      assert.equal(all.response.numFound, 7);
      const page = await solr(anon, `${base}&rows=3&start=3`);
      assert.deepEqual(
        page.response.docs.map((d) => d.id),
        all.response.docs.slice(3, 6).map((d) => d.id),
      );
      assert.deepEqual(Object.keys(page.response.docs[0] ?? {}), ["id"]);
      const byTitle = await solr(anon, `q=id:${tag}*&fl=id,title&sort=title+asc&rows=100&wt=json`);
      const titles = byTitle.response.docs.map((d) => d.title).filter((t) => t !== undefined) as string[];
      assert.deepEqual(titles, [...titles].sort());
      assert.equal(byTitle.response.docs.at(-1)?.id, dataPid, "documents without the sort field come last");
    });

    it("update: the new version is indexed and the old one gets obsoletedBy", async () => {
      const first = `${tag}-v1`;
      const second = `${tag}-v2`;
      assert.equal(
        (
          await create(user, first, fixture("eml-2.2.0-testdoc.xml"), {
            formatId: EML220,
            rightsHolder: USER,
          })
        ).status,
        200,
      );
      const r = await update(user, first, second, fixture("eml-2.2.0-testdoc.xml"), {
        formatId: EML220,
        rightsHolder: USER,
      });
      assert.equal(r.status, 200, await r.text());
      const both = await solr(anon, `q=id:${tag}-v*&fl=id,obsoletedBy,obsoletes,title&sort=id+asc&wt=json`);
      assert.deepEqual(both.response.docs, [
        { id: first, obsoletedBy: second, title: "EML Annotation Example" },
        { id: second, obsoletes: first, title: "EML Annotation Example" },
      ]);
      const latest = await solr(anon, `q=${encodeURIComponent(`id:${tag}-v* -obsoletedBy:*`)}&fl=id&wt=json`);
      assert.deepEqual(ids(latest), [second]);
    });

    it("facet.query, facet.range, stats and group", async () => {
      const r = await solr(
        anon,
        `q=id:${tag}*&rows=0&wt=json&facet=true&facet.query=${encodeURIComponent("formatType:DATA")}` +
          `&facet.range=beginDate&facet.range.start=1990-01-01T00:00:00Z&facet.range.end=2010-01-01T00:00:00Z&facet.range.gap=%2B10YEARS` +
          `&stats=true&stats.field=northBoundCoord&stats.field=size`,
      );
      assert.equal(r.facet_counts?.facet_queries["formatType:DATA"], 1);
      assert.deepEqual(r.facet_counts?.facet_ranges.beginDate?.counts, [
        "1990-01-01T00:00:00Z",
        3,
        "2000-01-01T00:00:00Z",
        1,
      ]);
      const north = r.stats?.stats_fields.northBoundCoord ?? {};
      assert.equal(north.max, 65.7);
      assert.equal(north.min, 26);
      assert.equal(north.count, 4);
      const grouped = await solr(
        anon,
        `q=id:${tag}*&group=true&group.field=formatType&group.ngroups=true&rows=10&wt=json`,
      );
      const g = grouped.grouped?.formatType;
      assert.equal(g?.groups.length, 2);
      assert.deepEqual(g?.groups.map((x) => x.groupValue).sort(), ["DATA", "METADATA"]);
    });

    it("wt=xml gives Solr's XML response", async () => {
      const response = await call(
        anon,
        "GET",
        `/query/solr/?q=id:"${dataPid}"&fl=id,size,isPublic,dateUploaded,readPermission&facet=true&facet.field=formatType`,
      );
      const xml = await response.text();
      assert.equal(response.status, 200);
      assert.match(response.headers.get("content-type") ?? "", /xml/);
      assert.match(xml, /<result name="response" numFound="1" start="0"/);
      assert.match(xml, /<str name="id">[^<]+-data<\/str>/);
      assert.match(xml, /<long name="size">8<\/long>/);
      assert.match(xml, /<bool name="isPublic">true<\/bool>/);
      assert.match(xml, /<date name="dateUploaded">/);
      assert.match(xml, /<arr name="readPermission"><str>public<\/str><\/arr>/);
      assert.match(xml, /<lst name="formatType"><int name="DATA">1<\/int><\/lst>/);
    });

    it("malformed queries and unknown fields are InvalidRequest (2823)", async () => {
      for (const q of ["title:(unclosed", "nosuchfield:x", "dateUploaded:[yesterday TO *]"]) {
        const response = await call(anon, "GET", `/query/solr/?q=${encodeURIComponent(q)}&wt=json`);
        assert.equal(response.status, 400, q);
        const text = await response.text();
        assert.match(text, /InvalidRequest/);
        assert.match(text, /detailCode="2823"/);
      }
      const sort = await call(anon, "GET", "/query/solr/?q=*:*&sort=title");
      assert.equal(sort.status, 400);
    });

    it("archived objects are hidden unless asked for; sysmeta changes reindex only that document", async () => {
      const pid = `${tag}-toarchive`;
      assert.equal((await create(user, pid, Buffer.from("x"), { rightsHolder: USER })).status, 200);
      assert.equal((await solr(anon, `q=id:"${pid}"&wt=json`)).response.numFound, 1);
      assert.equal((await call(user, "PUT", `/archive/${enc(pid)}`)).status, 200);
      assert.equal((await solr(anon, `q=id:"${pid}"&wt=json`)).response.numFound, 0);
      const asked = await solr(anon, `q=id:"${pid}"&archived=archived:*&fl=id,archived&wt=json`);
      assert.deepEqual(asked.response.docs, [{ id: pid, archived: true }]);
      assert.equal((await solr(anon, `q=id:"${pid}" AND archived:true&wt=json`)).response.numFound, 1);
      // access change through updateSystemMetadata
      const meta = await (await call(user, "GET", `/meta/${enc(emlPid)}`)).text();
      const changed = editSysmeta(meta, {
        accessPolicy: `<accessPolicy><allow><subject>${OTHER}</subject><permission>read</permission></allow></accessPolicy>`,
      });
      const r = await updateSysmeta(user, emlPid, changed);
      assert.equal(r.status, 200, await r.text());
      assert.equal((await solr(anon, `q=id:"${emlPid}"&wt=json`)).response.numFound, 0);
      const seen = await solr(other, `q=id:"${emlPid}"&fl=title,readPermission,isPublic&wt=json`);
      assert.deepEqual(seen.response.docs, [
        { title: "Augrabies falls National Park census data.", readPermission: [OTHER], isPublic: false },
      ]);
    });

    it("the Node document advertises MNQuery", async () => {
      const xml = await (await call(anon, "GET", "/node")).text();
      assert.match(xml, /<service name="MNQuery" version="v2" available="true"/);
    });
  });
}
