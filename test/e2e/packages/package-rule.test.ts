/**
 * The package rule: a client's MNStorage.create / update of a resource map is refused with InvalidRequest, naming
 * the aggregated objects this node does not hold, and nothing of it is stored; created members first, the map is
 * accepted. A RESOURCE format that is no OAI-ORE map (AnnotatorJS's JSON) is stored as sent. A map sent as a resumable upload and refused leaves the upload for the retry. With `packageMembers`
 * `anywhere` a map may aggregate objects held elsewhere, and a member created after its map gets the package fields.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { type Caller, call, checkedError, create, enc, form, update } from "../../helpers/clients/client.ts";
import { createUpload, patchUpload } from "../../helpers/clients/tus.ts";
import { RESOURCE_MAP_FORMAT, resourceMapXml } from "../../helpers/data/resource-map.ts";
import { sysmetaXml, uniquePid } from "../../helpers/data/sysmeta.ts";
import { ADMIN, startTestNode, type TestNode, testDialects } from "../../helpers/nodes/node.ts";

const EML = "eml://ecoinformatics.org/eml-2.1.1";
const ANNOTATOR_JS = "http://docs.annotatorjs.org/en/v1.2.x/annotation-format.html";
const eml = (title: string) =>
  Buffer.from(
    `<eml:eml xmlns:eml="${EML}" packageId="p" system="s"><dataset><title>${title}</title></dataset></eml:eml>`,
  );

/** Whether the node holds `pid` (its system metadata answers). */
async function holds(c: Caller, pid: string): Promise<boolean> {
  const response = await call(c, "GET", `/meta/${enc(pid)}`);
  await response.arrayBuffer();
  return response.status === 200;
}

async function storeKeys(node: TestNode): Promise<number> {
  let count = 0;
  for await (const _ of node.node.ctx.store.keys()) count++;
  return count;
}

for (const dialect of testDialects()) {
  describe(`the package rule (${dialect})`, () => {
    let node: TestNode;
    let admin: Caller;
    before(async () => {
      node = await startTestNode(dialect);
      admin = { baseUrl: node.baseUrl, token: await node.token(ADMIN) };
    });
    after(() => node.close());

    it("refuses a map before its members, naming them; stores nothing; accepts it once they exist", async () => {
      const metadata = uniquePid("eml");
      const data = [uniquePid("csv"), uniquePid("csv")];
      const map = uniquePid("map");
      const rdf = Buffer.from(resourceMapXml(map, metadata, data));
      const keysBefore = await storeKeys(node);
      const early = await checkedError(await create(admin, map, rdf, { formatId: RESOURCE_MAP_FORMAT }));
      assert.deepEqual([early.status, early.name, early.detailCode], [400, "InvalidRequest", "1102"]);
      for (const pid of [metadata, ...data]) assert.ok(early.body.includes(`"${pid}"`), early.body);
      assert.match(early.body, /aggregates 3 object\(s\) this node does not hold/);
      assert.equal(await holds(admin, map), false);
      assert.equal(await storeKeys(node), keysBefore);

      // The metadata alone is not enough: the data objects are still named.
      assert.equal((await create(admin, metadata, eml("Lake"), { formatId: EML })).status, 200);
      const partial = await checkedError(await create(admin, map, rdf, { formatId: RESOURCE_MAP_FORMAT }));
      assert.match(partial.body, /aggregates 2 object\(s\)/);
      assert.ok(!partial.body.includes(`"${metadata}"`), partial.body);

      for (const pid of data)
        assert.equal((await create(admin, pid, Buffer.from(`v\n${pid}\n`))).status, 200);
      const created = await create(admin, map, rdf, { formatId: RESOURCE_MAP_FORMAT });
      assert.equal(created.status, 200, await created.text());
    });

    it("refuses a new version of a map naming an object not here (1202), and bytes that are no map", async () => {
      const metadata = uniquePid("eml");
      const map = uniquePid("map");
      assert.equal((await create(admin, metadata, eml("Snow"), { formatId: EML })).status, 200);
      const rdf = Buffer.from(resourceMapXml(map, metadata, []));
      assert.equal((await create(admin, map, rdf, { formatId: RESOURCE_MAP_FORMAT })).status, 200);
      const next = uniquePid("map-v2");
      const missing = uniquePid("not-here");
      const nextRdf = Buffer.from(resourceMapXml(next, metadata, [missing]));
      const refused = await checkedError(
        await update(admin, map, next, nextRdf, { formatId: RESOURCE_MAP_FORMAT }),
      );
      assert.deepEqual([refused.status, refused.name, refused.detailCode], [400, "InvalidRequest", "1202"]);
      assert.ok(refused.body.includes(`"${missing}"`), refused.body);
      assert.equal(await holds(admin, next), false);
      const old = await (await call(admin, "GET", `/meta/${enc(map)}`)).text();
      assert.doesNotMatch(old, /obsoletedBy/);

      const junk = uniquePid("junk-map");
      const unreadable = await checkedError(
        await create(admin, junk, Buffer.from("not rdf at all"), { formatId: RESOURCE_MAP_FORMAT }),
      );
      assert.deepEqual([unreadable.status, unreadable.name], [400, "InvalidRequest"]);
      assert.match(unreadable.body, /is not a readable resource map/);
    });

    it("stores an AnnotatorJS annotation (a RESOURCE format that is no resource map) as sent", async () => {
      // DataONE's format list types AnnotatorJS's JSON as RESOURCE; only OAI-ORE formats are resource maps. Sent
      // as d1_client (the instance generator) sends it: pid, object, then sysmeta.
      const pid = uniquePid("annotation");
      const annotation = Buffer.from(
        JSON.stringify({
          id: pid,
          annotator_schema_version: "v1.0",
          created: "2026-11-25T10:00:00Z",
          updated: "2026-11-25T10:00:00Z",
          text: "Water temperature in degrees Celsius",
          quote: "temp",
          uri: "https://example.org/view/doi:10.5063/EXAMPLE",
          ranges: [{ start: "/section[1]/p[2]", end: "/section[1]/p[2]", startOffset: 0, endOffset: 4 }],
          user: "http://orcid.org/0000-0002-1825-0097",
          consumer: "metacat",
          tags: ["http://purl.dataone.org/odo/ECSO_00001197"],
          permissions: { read: ["group:__world__"], admin: [], update: [], delete: [] },
        }),
      );
      const created = await create(admin, pid, annotation, { formatId: ANNOTATOR_JS });
      assert.equal(created.status, 200, await created.text());
      const got = await call(admin, "GET", `/object/${enc(pid)}`);
      assert.equal(got.status, 200);
      assert.deepEqual(Buffer.from(await got.arrayBuffer()), annotation);
      // It is not a package either: asking for one names what it is.
      const asPackage = await checkedError(
        await call(admin, "GET", `/packages/${enc("application/bagit-1.0")}/${enc(pid)}`),
      );
      assert.deepEqual([asPackage.status, asPackage.name], [400, "InvalidRequest"]);
      assert.match(asPackage.body, /not a resource map/);
    });

    it("a map sent as a resumable upload and refused leaves the upload for the retry", async () => {
      const data = uniquePid("csv");
      const metadata = uniquePid("eml");
      const map = uniquePid("map");
      const rdf = Buffer.from(resourceMapXml(map, metadata, [data]));
      const token = await node.token(ADMIN);
      const made = await createUpload(node.baseUrl, token, rdf.length, { checksumAlgorithm: "SHA-1" });
      const location = made.headers.location ?? "";
      const sent = await patchUpload(location, token, 0, rdf);
      assert.ok(sent !== "cut" && sent.status === 204, JSON.stringify(sent));
      const fromUpload = () =>
        call(admin, "POST", "/object", {
          body: form({
            pid: map,
            objectUpload: location,
            sysmeta: { xml: sysmetaXml(map, rdf, { formatId: RESOURCE_MAP_FORMAT }) },
          }),
        });
      const refused = await checkedError(await fromUpload());
      assert.equal(refused.name, "InvalidRequest", refused.body);
      assert.equal((await create(admin, metadata, eml("Fish"), { formatId: EML })).status, 200);
      assert.equal((await create(admin, data, Buffer.from("n\n1\n"))).status, 200);
      const created = await fromUpload();
      assert.equal(created.status, 200, await created.text());
    });
  });
}

describe("packageMembers anywhere", () => {
  let node: TestNode;
  let admin: Caller;
  before(async () => {
    node = await startTestNode("sqlite", { packageMembers: "anywhere" });
    admin = { baseUrl: node.baseUrl, token: await node.token(ADMIN) };
  });
  after(() => node.close());

  it("accepts a map of objects held elsewhere; a member created after it gets the package fields", async () => {
    const metadata = uniquePid("eml");
    const later = uniquePid("csv-later");
    const map = uniquePid("map");
    assert.equal((await create(admin, metadata, eml("River"), { formatId: EML })).status, 200);
    const rdf = Buffer.from(resourceMapXml(map, metadata, [later]));
    const created = await create(admin, map, rdf, { formatId: RESOURCE_MAP_FORMAT });
    assert.equal(created.status, 200, await created.text());
    assert.equal((await create(admin, later, Buffer.from("r\n1\n"))).status, 200);
    const q = `/query/solr/?q=${encodeURIComponent(`id:"${later}"`)}&fl=id,resourceMap,isDocumentedBy&wt=json`;
    const answer = (await (await call(admin, "GET", q)).json()) as { response: { docs: unknown[] } };
    assert.deepEqual(answer.response.docs, [{ id: later, resourceMap: [map], isDocumentedBy: [metadata] }]);
  });
});
