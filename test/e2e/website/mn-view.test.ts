/** MNView over a real listening node: listViews, every theme and object kind, errors, and the node's headers. */
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { before, describe, it } from "node:test";
import { type Caller, call, checkedError, create, enc, okXml } from "../../helpers/clients/client.ts";
import { RESOURCE_MAP_FORMAT, resourceMapXml } from "../../helpers/data/resource-map.ts";
import { uniquePid } from "../../helpers/data/sysmeta.ts";
import { ADMIN, testDialects, withTestNode } from "../../helpers/nodes/node.ts";

const fixture = (name: string) => readFileSync(new URL(`../../fixtures/views/${name}`, import.meta.url));
const EML = "eml://ecoinformatics.org/eml-2.1.1";

for (const dialect of testDialects()) {
  describe(`MNView (${dialect})`, () => {
    const node = withTestNode(dialect);
    let admin: Caller;
    let anon: Caller;
    const metadata = uniquePid("eml");
    const data = uniquePid("csv");
    const map = uniquePid("map");
    const hostile = uniquePid("hostile");
    const secret = uniquePid("secret");

    const put = async (pid: string, bytes: Buffer, options: Parameters<typeof create>[3] = {}) => {
      const response = await create(admin, pid, bytes, options);
      assert.equal(response.status, 200, await response.text());
    };

    before(async () => {
      admin = { baseUrl: node.baseUrl, token: await node.token(ADMIN) };
      anon = { baseUrl: node.baseUrl };
      await put(metadata, Buffer.from(fixture("eml-lake.xml").toString().replace("DATA_PID", data)), {
        formatId: EML,
      });
      await put(data, Buffer.from("time,depth,temp\n"), { fileName: "temperatures.csv" });
      await put(map, Buffer.from(resourceMapXml(map, metadata, [data])), { formatId: RESOURCE_MAP_FORMAT });
      await put(hostile, fixture("eml-hostile.xml"), { formatId: EML });
      await put(secret, fixture("eml-lake.xml"), { formatId: EML, readers: ["CN=alice"] });
    });

    for (const version of ["v1", "v2"] as const) {
      it(`listViews (${version}) is a valid OptionList with default and metacatui, also at /view`, async () => {
        for (const path of ["/views", "/view"]) {
          const xml = await okXml(await call({ ...anon, version }, "GET", path));
          assert.match(xml, /<option>default<\/option><option>metacatui<\/option>/);
        }
      });
    }

    it("default theme: a complete page of an EML document with its package and system metadata", async () => {
      const response = await call(anon, "GET", `/views/default/${enc(metadata)}`);
      assert.equal(response.status, 200);
      assert.equal(response.headers.get("content-type"), "text/html; charset=utf-8");
      assert.match(response.headers.get("content-security-policy") ?? "", /default-src 'none'/);
      const page = await response.text();
      assert.match(page, /^<!DOCTYPE html>/);
      for (const text of [
        '<h1 id="title">Water temperature of Lake Ontiki, 2019-2021</h1>',
        "Ada Limnos",
        "limnology",
        "2019-05-01 to 2021-10-31",
        "Thermistor chain",
        `href="/mn/v2/object/${encodeURIComponent(data)}">Download temperatures.csv</a>`,
        `href="/mn/v2/packages/application%2Fbagit-097/${encodeURIComponent(map)}"`,
        "<th>Checksum</th>",
      ]) {
        assert.ok(page.includes(text), `page shows ${text}`);
      }
    });

    it("a page carries a strong ETag of its bytes; If-None-Match with it is 304, the same page again", async () => {
      const first = await call(anon, "GET", `/views/default/${enc(metadata)}`);
      const etag = first.headers.get("etag") ?? "";
      assert.match(etag, /^"sha256-[0-9a-f]{64}"$/);
      const page = await first.text();
      const again = await call(anon, "GET", `/views/default/${enc(metadata)}`);
      assert.equal(again.headers.get("etag"), etag);
      assert.equal(await again.text(), page);
      const cached = await call(anon, "GET", `/views/default/${enc(metadata)}`, {
        headers: { "if-none-match": etag },
      });
      assert.equal(cached.status, 304);
      assert.equal(cached.headers.get("etag"), etag);
      const other = await call(anon, "GET", `/views/metacatui/${enc(metadata)}`, {
        headers: { "if-none-match": etag },
      });
      assert.equal(other.status, 200);
      assert.notEqual(other.headers.get("etag"), etag);
    });

    it("an unknown theme renders with default (not an error)", async () => {
      const response = await call(anon, "GET", `/views/no-such-theme/${enc(metadata)}`);
      assert.equal(response.status, 200);
      assert.match(await response.text(), /^<!DOCTYPE html>/);
    });

    it("metacatui theme: the #Metadata fragment MetacatUI embeds", async () => {
      const response = await call(anon, "GET", `/views/metacatui/${enc(metadata)}`);
      assert.equal(response.status, 200);
      assert.equal(response.headers.get("content-type"), "text/html; charset=utf-8");
      const fragment = await response.text();
      assert.match(fragment, /^<div id="Metadata" class="container">/);
      assert.match(
        fragment,
        /<span id="viewMetadataCitationLink">Ada Limnos, Lake Ontiki Field Station\. Water temperature/,
      );
      assert.match(fragment, /<h4>Geographic Region<\/h4>/);
      assert.match(
        fragment,
        /<label class="control-label">North<\/label><div class="controls controls-well">43.10&nbsp;degrees/,
      );
      assert.ok(fragment.includes(`class="controls controls-well entitydetails" data-id="${data}"`));
      // The citation is the form's first child (MetacatUI hides it there and shows its own header).
      assert.match(
        fragment,
        /^<div id="Metadata" class="container">\s*<form class="form-horizontal">\s*<div class="well citation">/,
      );
      assert.doesNotMatch(fragment, /<html|<body/);
    });

    it("a data object and a resource map get pages too", async () => {
      const dataPage = await (await call(anon, "GET", `/views/default/${enc(data)}`)).text();
      assert.match(dataPage, /Download temperatures\.csv/);
      assert.ok(dataPage.includes(`Package <a href="/mn/v2/views/default/${encodeURIComponent(map)}">`));
      const mapPage = await (await call(anon, "GET", `/views/default/${enc(map)}`)).text();
      assert.ok(mapPage.includes(`Data package ${map}`));
      assert.ok(mapPage.includes(">temperatures.csv</a>"));
    });

    it("a hostile document renders inert", async () => {
      const page = await (await call(anon, "GET", `/views/default/${enc(hostile)}`)).text();
      // The one script element is the landing page's JSON-LD data block, with no "<" inside it.
      const blocks = page.match(/<script type="application\/ld\+json">[^<]*<\/script>/g) ?? [];
      assert.equal(blocks.length, 1);
      assert.doesNotMatch(page.replace(blocks[0] as string, ""), /<script/i);
      assert.doesNotMatch(page, /<[a-z]+\s[^>]*\bon[a-z]+\s*=/i);
      assert.doesNotMatch(page, /href\s*=\s*["']?\s*(?:javascript|data):/i);
    });

    it("NotFound (2835) and NotAuthorized (2832) as exception documents", async () => {
      const missing = await checkedError(await call(anon, "GET", "/views/default/no-such-object"));
      assert.deepEqual([missing.status, missing.name, missing.detailCode], [404, "NotFound", "2835"]);
      const refused = await checkedError(await call(anon, "GET", `/views/default/${enc(secret)}`));
      assert.deepEqual([refused.status, refused.name, refused.detailCode], [401, "NotAuthorized", "2832"]);
      const alice = { baseUrl: node.baseUrl, token: await node.token("CN=alice") };
      assert.equal((await call(alice, "GET", `/views/default/${enc(secret)}`)).status, 200);
    });
  });
}
