/**
 * CNRead.listQueryEngines, getQueryEngineDescription, query and search on a real listening Coordinating Node,
 * SQLite and PostgreSQL: objects created through CNCore.create are searchable with their science metadata, objects
 * registered by system metadata alone by their system metadata; every CN write (setAccessPolicy, setRightsHolder,
 * archive, setObsoletedBy, updateSystemMetadata, replication policy and replica metadata, delete) shows in the
 * next answer; access (readers, rights holders, group members) and archived filtering; v1 and v2; DataONE
 * documents validate, Solr's XML is well-formed.
 */
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { before, describe, it } from "node:test";
import { type Caller, call, checkedError, create, enc, form, okXml } from "../../helpers/clients/client.ts";
import { editSysmeta, elementText, sysmetaXml, uniquePid } from "../../helpers/data/sysmeta.ts";
import { ADMIN, CN_SUBJECT, testDialects, withTestNode } from "../../helpers/nodes/node.ts";

const OWNER = "CN=Search Owner,DC=example,DC=org";
const READER = "CN=Search Reader,DC=example,DC=org";
const MEMBER = "CN=Group Member,DC=example,DC=org";
const GROUP = "CN=search-readers,DC=example,DC=org";
const EML210 = "eml://ecoinformatics.org/eml-2.1.0";
const EML220 = "https://eml.ecoinformatics.org/eml-2.2.0";
const MN = "urn:node:SEARCHMN";
const HELD_BY_MN = `<originMemberNode>${MN}</originMemberNode><authoritativeMemberNode>${MN}</authoritativeMemberNode>`;
const fixture = (name: string) => readFileSync(new URL(`../../fixtures/search/${name}`, import.meta.url));

interface SolrJson {
  responseHeader: { params: Record<string, string | string[]> };
  response: { numFound: number; docs: Record<string, unknown>[] };
  facet_counts?: { facet_fields: Record<string, (string | number)[]> };
}

/** Solr's XML answer is not a DataONE type: it is checked for well-formedness only. */
function assertWellFormed(xml: string): void {
  const lint = spawnSync("xmllint", ["--noout", "--nonet", "-"], { input: xml, encoding: "utf8" });
  assert.equal(lint.status, 0, lint.stderr);
}

for (const dialect of testDialects()) {
  describe(`CN query and search (${dialect})`, () => {
    const node = withTestNode(dialect, { role: "cn", nodeId: "urn:node:TESTCN" });
    let admin: Caller;
    let cn: Caller;
    let owner: Caller;
    let reader: Caller;
    let anon: Caller;
    const tag = uniquePid("cns").replace(/[^a-z0-9]/gi, "");
    const emlPid = `${tag}-eml`;
    const privatePid = `${tag}-private`;
    const remoteEmlPid = `${tag}-remote-eml`;
    const remoteDataPid = `${tag}-remote-data`;

    const solr = async (c: Caller, query: string, version: "v1" | "v2" = "v2"): Promise<SolrJson> => {
      const response = await call({ ...c, version }, "GET", `/query/solr/?${query}&wt=json`);
      assert.equal(response.status, 200, await response.clone().text());
      assert.match(response.headers.get("content-type") ?? "", /application\/json/);
      return (await response.json()) as SolrJson;
    };
    const ids = async (c: Caller, q: string, more = "") =>
      (await solr(c, `q=${encodeURIComponent(q)}&fl=id&rows=100${more}`)).response.docs
        .map((d) => d.id as string)
        .sort();
    const register = (pid: string, xml: string) =>
      call(cn, "POST", "/meta", { body: form({ pid, sysmeta: { xml } }) });
    const serialVersion = async (pid: string) =>
      elementText(await okXml(await call(admin, "GET", `/meta/${enc(pid)}`)), "serialVersion") ?? "";

    before(async () => {
      admin = { baseUrl: node.baseUrl, token: await node.token(ADMIN) };
      cn = { baseUrl: node.baseUrl, token: await node.token(CN_SUBJECT) };
      owner = { baseUrl: node.baseUrl, token: await node.token(OWNER) };
      reader = { baseUrl: node.baseUrl, token: await node.token(READER) };
      anon = { baseUrl: node.baseUrl };
      const created = await create(admin, emlPid, fixture("eml-2.1.0-peggym.130.4.xml"), {
        formatId: EML210,
        rightsHolder: OWNER,
      });
      assert.equal(created.status, 200, await created.text());
      const hidden = await create(admin, privatePid, fixture("eml-2.2.0-testdoc.xml"), {
        formatId: EML220,
        rightsHolder: OWNER,
        readers: [READER],
      });
      assert.equal(hidden.status, 200, await hidden.text());
      const remoteEml = sysmetaXml(remoteEmlPid, Buffer.from("<eml/> held by the MN"), {
        formatId: EML220,
        rightsHolder: OWNER,
        extra: HELD_BY_MN,
      });
      await okXml(await register(remoteEmlPid, remoteEml));
      const remoteData = sysmetaXml(remoteDataPid, Buffer.from("a,b\n1,2\n"), {
        rightsHolder: OWNER,
        fileName: "remote.csv",
        extra: HELD_BY_MN,
      });
      await okXml(await register(remoteDataPid, remoteData));
    });

    it("lists and describes the solr engine on v2 and v1 (valid XML); unknown engines are NotFound", async () => {
      for (const version of ["v2", "v1"] as const) {
        const c = { ...anon, version };
        assert.match(await okXml(await call(c, "GET", "/query")), /<queryEngine>solr<\/queryEngine>/);
        const description = await okXml(await call(c, "GET", "/query/solr"));
        assert.match(description, /<name>solr<\/name>/);
        assert.match(description, /<queryField><name>abstract<\/name>/);
        const unknown = await checkedError(await call(c, "GET", "/query/nosuch"));
        assert.deepEqual([unknown.status, unknown.name, unknown.detailCode], [404, "NotFound", "4414"]);
        const unknownQuery = await checkedError(await call(c, "GET", "/query/nosuch/?q=*:*"));
        assert.deepEqual([unknownQuery.name, unknownQuery.detailCode], ["NotFound", "4325"]);
      }
      const malformed = await checkedError(await call(anon, "GET", "/query/solr/?q=title:(unclosed"));
      assert.deepEqual(
        [malformed.status, malformed.name, malformed.detailCode],
        [400, "InvalidRequest", "4323"],
      );
    });

    it("indexes created EML with its science metadata, registered objects by system metadata", async () => {
      const r = await solr(
        anon,
        `q=id:${tag}-*&fl=id,title,formatType,datasource,authoritativeMN,fileName&rows=10`,
      );
      const byId = new Map(r.response.docs.map((d) => [d.id as string, d]));
      assert.deepEqual([...byId.keys()].sort(), [emlPid, remoteDataPid, remoteEmlPid].sort());
      assert.deepEqual(byId.get(emlPid), {
        id: emlPid,
        title: "Augrabies falls National Park census data.",
        formatType: "METADATA",
        datasource: "urn:node:TESTCN",
        authoritativeMN: "urn:node:TESTCN",
      });
      assert.deepEqual(byId.get(remoteEmlPid), {
        id: remoteEmlPid,
        formatType: "METADATA",
        datasource: MN,
        authoritativeMN: MN,
      });
      assert.equal(byId.get(remoteDataPid)?.fileName, "remote.csv");
      const facets = await solr(
        anon,
        `q=id:${tag}-*&rows=0&facet=true&facet.field=formatType&facet.field=datasource&facet.sort=index`,
      );
      assert.deepEqual(facets.facet_counts?.facet_fields.formatType, ["DATA", 1, "METADATA", 2]);
      assert.deepEqual(facets.facet_counts?.facet_fields.datasource, [MN, 2, "urn:node:TESTCN", 1]);
      const keywords = await ids(anon, 'keywords:"Census data"');
      assert.deepEqual(keywords, [emlPid]);
    });

    it("a private object is seen only by its reader, its rights holder and administrators", async () => {
      const q = `id:${tag}-*`;
      assert.ok(!(await ids(anon, q)).includes(privatePid));
      assert.ok((await ids(reader, q)).includes(privatePid));
      assert.ok((await ids(owner, q)).includes(privatePid));
      assert.ok((await ids(admin, q)).includes(privatePid));
      const [doc] = (await solr(reader, `q=id:"${privatePid}"&fl=title,isPublic,readPermission`)).response
        .docs;
      assert.deepEqual(doc, { title: "EML Annotation Example", isPublic: false, readPermission: [READER] });
    });

    it("a group's registered members see what the group may read (the session as the CN expands it)", async () => {
      const member = { baseUrl: node.baseUrl, token: await node.token(MEMBER) };
      const person = `<?xml version="1.0" encoding="UTF-8"?><d1:person xmlns:d1="http://ns.dataone.org/service/types/v1"><subject>${MEMBER}</subject><givenName>Group</givenName><familyName>Member</familyName></d1:person>`;
      await okXml(await call(member, "POST", "/accounts", { body: form({ person: { xml: person } }) }));
      const groupXml = `<?xml version="1.0" encoding="UTF-8"?><d1:group xmlns:d1="http://ns.dataone.org/service/types/v1"><subject>${GROUP}</subject><groupName>${tag}</groupName><hasMember>${MEMBER}</hasMember><rightsHolder>${OWNER}</rightsHolder></d1:group>`;
      await okXml(await call(owner, "POST", "/groups", { body: form({ group: { xml: groupXml } }) }));
      const pid = `${tag}-grouped`;
      const created = await create(admin, pid, Buffer.from("g"), { rightsHolder: OWNER, readers: [GROUP] });
      assert.equal(created.status, 200, await created.text());
      assert.deepEqual(await ids(member, `id:"${pid}"`), [pid]);
      assert.deepEqual(await ids(reader, `id:"${pid}"`), []);
      const search = await okXml(await call(member, "GET", `/search/solr/${enc(`id:"${pid}"`)}`));
      assert.match(search, /total="1"/);
      await okXml(await call(admin, "DELETE", `/object/${enc(pid)}`));
    });

    it("answers POSTed multipart queries (as MetacatUI sends them), queries in the path, and wt=xml", async () => {
      const body = new FormData();
      body.append("q", `formatType:METADATA AND -obsoletedBy:* AND id:${tag}*`);
      body.append("fl", "id,title");
      body.append("sort", "id asc");
      body.append("rows", "25");
      body.append("wt", "json");
      body.append("facet", "true");
      body.append("facet.field", "keywords");
      body.append("facet.mincount", "1");
      const posted = await call(reader, "POST", "/query/solr/", { body });
      assert.equal(posted.status, 200, await posted.clone().text());
      const answer = (await posted.json()) as SolrJson;
      assert.deepEqual(
        answer.response.docs.map((d) => d.id),
        [emlPid, privatePid, remoteEmlPid].sort(),
      );
      assert.ok((answer.facet_counts?.facet_fields.keywords ?? []).includes("Census data"));
      const inPath = await call(anon, "GET", `/query/solr/${enc(`?q=id:"${remoteDataPid}"&fl=id&wt=json`)}`);
      assert.deepEqual(((await inPath.json()) as SolrJson).response.docs, [{ id: remoteDataPid }]);
      const xml = await call(
        anon,
        "GET",
        `/query/solr/?q=id:"${emlPid}"&fl=id,size,isPublic&facet=true&facet.field=formatType`,
      );
      const text = await xml.text();
      assert.equal(xml.status, 200);
      assert.match(xml.headers.get("content-type") ?? "", /xml/);
      assertWellFormed(text);
      assert.match(text, /<result name="response" numFound="1" start="0"/);
      assert.match(text, /<bool name="isPublic">true<\/bool>/);
      assert.match(text, /<lst name="formatType"><int name="METADATA">1<\/int><\/lst>/);
    });

    it("setAccessPolicy, setRightsHolder and archive show in the next answer", async () => {
      const policy = `<?xml version="1.0" encoding="UTF-8"?><d1:accessPolicy xmlns:d1="http://ns.dataone.org/service/types/v1"><allow><subject>${READER}</subject><permission>read</permission></allow></d1:accessPolicy>`;
      const setPolicy = await call(owner, "PUT", `/accessRules/${enc(remoteDataPid)}`, {
        body: form({ accessPolicy: { xml: policy }, serialVersion: await serialVersion(remoteDataPid) }),
      });
      assert.equal(setPolicy.status, 200, await setPolicy.text());
      assert.deepEqual(await ids(anon, `id:"${remoteDataPid}"`), []);
      assert.deepEqual(await ids(reader, `id:"${remoteDataPid}"`), [remoteDataPid]);

      const NEW_OWNER = "CN=New Owner,DC=example,DC=org";
      const setOwner = await call(owner, "PUT", `/owner/${enc(remoteEmlPid)}`, {
        body: form({ userId: NEW_OWNER, serialVersion: await serialVersion(remoteEmlPid) }),
      });
      await okXml(setOwner);
      assert.deepEqual(await ids(anon, `rightsHolder:"${NEW_OWNER}"`), [remoteEmlPid]);
      assert.deepEqual(await ids(anon, `rightsHolder:"${OWNER}" AND id:${tag}-*`), [emlPid]);

      await okXml(await call(admin, "PUT", `/archive/${enc(remoteEmlPid)}`));
      assert.deepEqual(await ids(anon, `id:"${remoteEmlPid}"`), []);
      assert.deepEqual(await ids(anon, `id:"${remoteEmlPid}"`, "&archived=archived:*"), [remoteEmlPid]);
      assert.deepEqual(await ids(anon, `id:"${remoteEmlPid}" AND archived:true`), [remoteEmlPid]);
    });

    it("setObsoletedBy, updateSystemMetadata, replication policy and replica metadata, delete show at once", async () => {
      const pid = uniquePid("cns-life");
      const xml = sysmetaXml(pid, Buffer.from("life"), { rightsHolder: OWNER, extra: HELD_BY_MN });
      await okXml(await register(pid, xml));
      const obsoleted = await call(admin, "PUT", `/obsoletedBy/${enc(pid)}`, {
        body: form({ obsoletedByPid: `${pid}.next`, serialVersion: "1" }),
      });
      assert.equal(obsoleted.status, 200, await obsoleted.text());
      assert.deepEqual(await ids(anon, `obsoletedBy:"${pid}.next"`), [pid]);

      const current = await okXml(await call(admin, "GET", `/meta/${enc(pid)}`));
      const renamed = await call(cn, "PUT", "/meta", {
        body: form({ pid, sysmeta: { xml: editSysmeta(current, { fileName: "renamed.csv" }) } }),
      });
      assert.equal(renamed.status, 200, await renamed.text());
      assert.deepEqual(await ids(anon, "fileName:renamed.csv"), [pid]);

      const policy = `<?xml version="1.0" encoding="UTF-8"?><d1:replicationPolicy xmlns:d1="http://ns.dataone.org/service/types/v1" replicationAllowed="true" numberReplicas="2"><preferredMemberNode>urn:node:PREFERRED</preferredMemberNode></d1:replicationPolicy>`;
      const setPolicy = await call(owner, "PUT", `/replicaPolicies/${enc(pid)}`, {
        body: form({ policy: { xml: policy }, serialVersion: await serialVersion(pid) }),
      });
      assert.equal(setPolicy.status, 200, await setPolicy.text());
      const [withPolicy] = (await solr(anon, `q=id:"${pid}"&fl=numberReplicas,preferredReplicationMN`))
        .response.docs;
      assert.deepEqual(withPolicy, { numberReplicas: 2, preferredReplicationMN: ["urn:node:PREFERRED"] });

      const replica = `<?xml version="1.0" encoding="UTF-8"?><d1:replica xmlns:d1="http://ns.dataone.org/service/types/v1"><replicaMemberNode>urn:node:REPLICAMN</replicaMemberNode><replicationStatus>completed</replicationStatus><replicaVerified>2026-01-01T00:00:00Z</replicaVerified></d1:replica>`;
      const added = await call(cn, "PUT", `/replicaMetadata/${enc(pid)}`, {
        body: form({ replicaMetadata: { xml: replica }, serialVersion: await serialVersion(pid) }),
      });
      assert.equal(added.status, 200, await added.text());
      assert.deepEqual(await ids(anon, "replicaMN:urn\\:node\\:REPLICAMN"), [pid]);
      const status = await call(cn, "PUT", `/replicaNotifications/${enc(pid)}`, {
        body: form({ nodeRef: "urn:node:REPLICAMN", status: "failed" }),
      });
      assert.equal(status.status, 200, await status.text());
      const [doc] = (await solr(anon, `q=id:"${pid}"&fl=replicationStatus`)).response.docs;
      assert.deepEqual(doc, { replicationStatus: ["failed"] });
      const removed = await call(cn, "PUT", `/removeReplicaMetadata/${enc(pid)}`, {
        body: form({ nodeId: "urn:node:REPLICAMN", serialVersion: await serialVersion(pid) }),
      });
      assert.equal(removed.status, 200, await removed.text());
      assert.deepEqual(await ids(anon, "replicaMN:urn\\:node\\:REPLICAMN"), []);

      await okXml(await call(admin, "DELETE", `/object/${enc(pid)}`));
      assert.deepEqual(await ids(admin, `id:"${pid}"`, "&archived=archived:*"), []);
    });

    it("search answers an ObjectList (v2 and v1) of what the caller may see, paged", async () => {
      for (const version of ["v2", "v1"] as const) {
        const c = { ...anon, version };
        const listed = await okXml(await call(c, "GET", `/search/solr/${enc(`id:${tag}-*`)}?start=0&rows=5`));
        assert.match(listed, /<\?xml[^>]*\?>\s*<\w+:objectList [^>]*count="1" start="0" total="1"/);
        assert.equal(elementText(listed, "identifier"), emlPid);
        assert.equal(elementText(listed, "formatId"), EML210);
        assert.equal(elementText(listed, "size"), String(fixture("eml-2.1.0-peggym.130.4.xml").length));
      }
      const all = await okXml(
        await call(reader, "GET", `/search/solr/${enc(`?q=id:${tag}-*&sort=id asc&rows=2&start=1`)}`),
      );
      assert.match(all, /count="2" start="1" total="3"/, "the archived one is left out");
      assert.deepEqual(
        [...all.matchAll(/<identifier>([^<]+)<\/identifier>/g)].map((m) => m[1]),
        [privatePid, remoteDataPid],
      );
      const viaUrl = await okXml(
        await call(admin, "GET", `/search/solr?q=${encodeURIComponent(`id:"${emlPid}"`)}`),
      );
      assert.match(viaUrl, /total="1"/);
      const unknown = await checkedError(await call(anon, "GET", "/search/lucene/*:*"));
      assert.deepEqual([unknown.status, unknown.name, unknown.detailCode], [501, "NotImplemented", "4281"]);
      const malformed = await checkedError(await call(anon, "GET", `/search/solr/${enc("title:(unclosed")}`));
      assert.deepEqual(
        [malformed.status, malformed.name, malformed.detailCode],
        [400, "InvalidRequest", "4300"],
      );
    });
  });
}
