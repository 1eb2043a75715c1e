/**
 * /sitemap.xml: an index of files of at most `sitemapFileUrls` URLs listing the landing pages of public, current
 * metadata objects (not obsoleted, archived or private; no data), with lastmod; /robots.txt names it.
 */
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { createRequire } from "node:module";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { XMLParser } from "fast-xml-parser";
import { type Caller, call, create, enc, update } from "../../helpers/clients/client.ts";
import { uniquePid } from "../../helpers/data/sysmeta.ts";
import { ADMIN, startTestNode, type TestNode, testDialects } from "../../helpers/nodes/node.ts";

const EML = "https://eml.ecoinformatics.org/eml-2.2.0";
/** The sitemaps.org urlset schema, as the sitemap package ships it. */
const URLSET_XSD = path.join(
  path.dirname(createRequire(import.meta.url).resolve("sitemap/package.json")),
  "schema/sitemap.xsd",
);
const eml = (title: string) =>
  Buffer.from(
    `<eml:eml xmlns:eml="${EML}" packageId="p" system="s"><dataset><title>${title}</title></dataset></eml:eml>`,
  );

function validUrlset(xml: string): void {
  execFileSync("xmllint", ["--noout", "--nonet", "--schema", URLSET_XSD, "-"], { input: xml, stdio: "pipe" });
}

const parser = new XMLParser({ isArray: (name) => name === "url" || name === "sitemap" });

for (const dialect of testDialects()) {
  describe(`sitemap (${dialect})`, () => {
    let node: TestNode;
    let admin: Caller;
    let origin: string;
    const listed = Array.from({ length: 6 }, (_, i) => uniquePid(`public${i}`));
    const old = uniquePid("old");
    const archived = uniquePid("archived");
    const secret = uniquePid("secret");
    const data = uniquePid("data");

    before(async () => {
      node = await startTestNode(dialect, { sitemapFileUrls: 3 });
      admin = { baseUrl: node.baseUrl, token: await node.token(ADMIN) };
      origin = new URL(node.baseUrl).origin;
      const ok = async (r: Promise<Response>) => assert.equal((await r).status, 200);
      for (const pid of listed.slice(0, 5)) await ok(create(admin, pid, eml(pid), { formatId: EML }));
      await ok(create(admin, old, eml("old"), { formatId: EML }));
      await ok(update(admin, old, listed[5] as string, eml("new"), { formatId: EML }));
      await ok(create(admin, archived, eml("archived"), { formatId: EML }));
      await ok(call(admin, "PUT", `/archive/${enc(archived)}`));
      await ok(create(admin, secret, eml("secret"), { formatId: EML, readers: ["CN=alice"] }));
      await ok(create(admin, data, Buffer.from("a,b\n")));
    });
    after(() => node.close());

    it("robots.txt names the sitemap index", async () => {
      const robots = await fetch(`${origin}/robots.txt`);
      assert.equal(robots.status, 200);
      assert.match(await robots.text(), new RegExp(`^Sitemap: ${origin}/sitemap\\.xml$`, "m"));
    });

    it("the index's files list every public current metadata object once, at most 3 URLs each, valid", async () => {
      const index = await fetch(`${origin}/sitemap.xml`);
      assert.equal(index.status, 200);
      assert.match(index.headers.get("content-type") ?? "", /^application\/xml/);
      const parsed = parser.parse(await index.text()) as {
        sitemapindex: { sitemap: { loc: string; lastmod?: string }[] };
      };
      const files = parsed.sitemapindex.sitemap;
      // 6 objects and the home page, 3 to a file.
      assert.equal(files.length, 3);
      const seen: string[] = [];
      for (const file of files) {
        assert.match(file.loc, new RegExp(`^${origin}/sitemaps/objects\\.xml`));
        assert.ok(!Number.isNaN(Date.parse(file.lastmod ?? "")), "each file has a lastmod");
        const xml = await (await fetch(file.loc)).text();
        validUrlset(xml);
        const urls = (parser.parse(xml) as { urlset: { url: { loc: string; lastmod?: string }[] } }).urlset
          .url;
        assert.ok(urls.length <= 3);
        seen.push(...urls.map((u) => u.loc));
      }
      const landing = (pid: string) => `${node.baseUrl}/v2/views/default/${encodeURIComponent(pid)}`;
      assert.deepEqual(seen.sort(), [`${node.baseUrl}/`, ...listed.map(landing)].sort());
      for (const hidden of [old, archived, secret, data]) assert.ok(!seen.includes(landing(hidden)));
    });

    it("a file's lastmod is the object's dateSysMetadataModified", async () => {
      const xml = await (await fetch(`${origin}/sitemaps/objects.xml`)).text();
      const urls = (parser.parse(xml) as { urlset: { url: { loc: string; lastmod?: string }[] } }).urlset.url;
      const entry = urls.find((u) => u.loc.includes("/views/default/"));
      const pid = decodeURIComponent(entry?.loc.replace(/^.*\/views\/default\//, "") ?? "");
      const sysmeta = await (await call({ baseUrl: node.baseUrl }, "GET", `/meta/${enc(pid)}`)).text();
      const modified = /<dateSysMetadataModified>([^<]+)</.exec(sysmeta)?.[1] ?? "";
      assert.equal(Date.parse(entry?.lastmod ?? ""), Date.parse(modified));
    });
  });
}
