/**
 * Package fields from an OAI-ORE resource map (a real DataONE map): resourceMap on every member, documents and
 * isDocumentedBy between metadata and data (members first, the map last; a member after its map: package-rule
 * .test.ts); MetacatUI's package table query; deleting the map takes the fields away. Both dialects.
 */
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { before, describe, it } from "node:test";
import { type Caller, call, create, enc } from "../../helpers/clients/client.ts";
import { ADMIN, testDialects, withTestNode } from "../../helpers/nodes/node.ts";

const USER = "CN=Package User,DC=example,DC=org";
const fixture = (name: string) => readFileSync(new URL(`../../fixtures/search/${name}`, import.meta.url));
const MAP = "peggym.resourcemap";
const METADATA = "peggym.130.4";
const DATA = ["peggym.127.1", "peggym.128.1", "peggym.129.1"];

for (const dialect of testDialects()) {
  describe(`search package fields (${dialect})`, () => {
    const node = withTestNode(dialect);
    let user: Caller;
    let admin: Caller;
    const docs = async (q: string, fl: string) => {
      const r = await call(
        user,
        "GET",
        `/query/solr/?q=${encodeURIComponent(q)}&fl=${fl}&rows=100&sort=id+asc&wt=json`,
      );
      assert.equal(r.status, 200);
      return ((await r.json()) as { response: { docs: Record<string, unknown>[] } }).response.docs;
    };
    before(async () => {
      user = { baseUrl: node.baseUrl, token: await node.token(USER) };
      admin = { baseUrl: node.baseUrl, token: await node.token(ADMIN) };
      const put = async (pid: string, bytes: Buffer, formatId: string) => {
        const r = await create(user, pid, bytes, { formatId, rightsHolder: USER });
        assert.equal(r.status, 200, await r.text());
      };
      await put(METADATA, fixture("eml-2.1.0-peggym.130.4.xml"), "eml://ecoinformatics.org/eml-2.1.0");
      await put(DATA[0] as string, Buffer.from("a\n"), "text/csv");
      await put(DATA[1] as string, Buffer.from("b\n"), "text/csv");
      await put(DATA[2] as string, Buffer.from("c\n"), "text/csv");
      // The map last: a client's map is refused until its members exist (package-rule.test.ts).
      await put(MAP, fixture("ore-peggym.resourcemap.xml"), "http://www.openarchives.org/ore/terms");
    });

    it("sets resourceMap, documents and isDocumentedBy", async () => {
      const [meta] = await docs(`id:"${METADATA}"`, "id,resourceMap,documents,formatType");
      assert.deepEqual(meta, { id: METADATA, resourceMap: [MAP], documents: DATA, formatType: "METADATA" });
      const data = await docs("formatType:DATA", "id,resourceMap,isDocumentedBy");
      assert.deepEqual(
        data,
        DATA.map((id) => ({ id, resourceMap: [MAP], isDocumentedBy: [METADATA] })),
      );
      const [map] = await docs(`id:"${MAP}"`, "id,formatType,resourceMap");
      assert.deepEqual(map, { id: MAP, formatType: "RESOURCE" });
    });

    it("answers MetacatUI's package table query", async () => {
      const rows = await docs(
        `(resourceMap:"${MAP}" OR id:"${MAP}")`,
        "resourceMap,fileName,obsoletes,obsoletedBy,size,formatType,formatId,id,datasource,rightsHolder,dateUploaded,archived,title,origin,prov_instanceOfClass,isDocumentedBy,isPublic",
      );
      assert.deepEqual(
        rows.map((d) => d.id),
        [...DATA, METADATA, MAP].sort(),
      );
      assert.equal(rows.find((d) => d.id === METADATA)?.title, "Augrabies falls National Park census data.");
    });

    it("deleting the map takes the package fields away", async () => {
      assert.equal((await call(admin, "DELETE", `/object/${enc(MAP)}`)).status, 200);
      const all = await docs("id:peggym*", "id,resourceMap,documents,isDocumentedBy");
      assert.deepEqual(
        all,
        [...DATA, METADATA].sort().map((id) => ({ id })),
      );
    });
  });
}
