/**
 * MNPackage.getPackage and HTTP validators: a bag is made anew per request (its Bagging-Date), so it carries a weak
 * entity tag of its content and Last-Modified; If-None-Match / If-Modified-Since answer 304 with no bag and no
 * read logged, only to callers who may read the package; a change to a member's system metadata changes the tag.
 */
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { before, describe, it } from "node:test";
import { promisify } from "node:util";
import { type Caller, call, create, enc, okXml, updateSysmeta, url } from "../../helpers/clients/client.ts";
import { RESOURCE_MAP_FORMAT, resourceMapXml } from "../../helpers/data/resource-map.ts";
import { editSysmeta, uniquePid } from "../../helpers/data/sysmeta.ts";
import { ADMIN, testDialects, withTestNode } from "../../helpers/nodes/node.ts";
import { eventually } from "../../helpers/time/eventually.ts";

const run = promisify(execFile);
const BAGIT_10 = enc("application/bagit-1.0");
const EML = Buffer.from(
  '<?xml version="1.0"?><eml:eml xmlns:eml="eml://ecoinformatics.org/eml-2.1.1" packageId="p" system="s"><dataset><title>Validators</title></dataset></eml:eml>',
);

for (const dialect of testDialects()) {
  describe(`MNPackage.getPackage: ETag, Last-Modified and 304 (${dialect})`, () => {
    const node = withTestNode(dialect);
    let admin: Caller;
    let anon: Caller;
    const metadata = uniquePid("eml");
    const data = uniquePid("csv");
    const map = uniquePid("map");
    const hidden = uniquePid("map-hidden");
    /** A map read only by the test of logged reads. */
    const counted = uniquePid("map-counted");

    before(async () => {
      admin = { baseUrl: node.baseUrl, token: await node.token(ADMIN) };
      anon = { baseUrl: node.baseUrl };
      const put = async (pid: string, bytes: Buffer, options: Parameters<typeof create>[3]) =>
        assert.equal((await create(admin, pid, bytes, options)).status, 200);
      await put(metadata, EML, { formatId: "eml://ecoinformatics.org/eml-2.1.1" });
      await put(data, Buffer.from("t,v\n1,2\n"), { fileName: "table.csv" });
      await put(map, Buffer.from(resourceMapXml(map, metadata, [data])), { formatId: RESOURCE_MAP_FORMAT });
      await put(hidden, Buffer.from(resourceMapXml(hidden, metadata, [data])), {
        formatId: RESOURCE_MAP_FORMAT,
        readers: [ADMIN],
      });
      await put(counted, Buffer.from(resourceMapXml(counted, metadata, [data])), {
        formatId: RESOURCE_MAP_FORMAT,
      });
    });

    const getPackage = (pid: string, headers: Record<string, string> = {}, caller = anon) =>
      call(caller, "GET", `/packages/${BAGIT_10}/${enc(pid)}`, { headers });
    const reads = async (pid: string) => {
      const log = await okXml(await call(admin, "GET", `/log?idFilter=${enc(pid)}&event=read&count=0`));
      return Number(/total="(\d+)"/.exec(log)?.[1]);
    };

    it("a bag carries a weak ETag of its content and Last-Modified; the same package, the same tag", async () => {
      const first = await getPackage(map);
      assert.equal(first.status, 200);
      await first.arrayBuffer();
      const etag = first.headers.get("etag") ?? "";
      assert.match(etag, /^W\/"bag-[0-9a-f]{64}"$/);
      assert.ok(Date.parse(first.headers.get("last-modified") ?? "") > 0);
      assert.equal(first.headers.get("accept-ranges"), null, "a bag made anew is not served by ranges");
      const again = await getPackage(map);
      await again.arrayBuffer();
      assert.equal(again.headers.get("etag"), etag);
      const other = await getPackage(map, {}, admin);
      await other.arrayBuffer();
      assert.equal(other.headers.get("etag"), etag, "the tag does not depend on who asks");
      const hiddenBag = await getPackage(hidden, {}, admin);
      await hiddenBag.arrayBuffer();
      assert.notEqual(hiddenBag.headers.get("etag"), etag);
    });

    it("If-None-Match and If-Modified-Since answer 304 with the tag, no bag and no read logged", async () => {
      const first = await getPackage(counted);
      await first.arrayBuffer();
      const etag = first.headers.get("etag") ?? "";
      await eventually("the bag's read logged", async () =>
        (await reads(counted)) === 1 ? true : undefined,
      );
      const conditions: Record<string, string>[] = [
        { "if-none-match": etag },
        { "if-none-match": `"other", ${etag}` },
        { "if-modified-since": first.headers.get("last-modified") ?? "" },
      ];
      for (const condition of conditions) {
        const response = await getPackage(counted, condition);
        assert.equal(response.status, 304, JSON.stringify(condition));
        assert.equal(response.headers.get("etag"), etag);
        assert.equal((await response.arrayBuffer()).byteLength, 0);
      }
      const stale = await getPackage(counted, { "if-none-match": 'W/"bag-0"' });
      assert.equal(stale.status, 200);
      await stale.arrayBuffer();
      // The 304s, logged, would have come before this read: the count goes from 1 to 2, not past it.
      await eventually("one more read", async () => ((await reads(counted)) >= 2 ? true : undefined));
      assert.equal(await reads(counted), 2);
    });

    it("a caller who may not read the package gets NotAuthorized whatever tag it sends", async () => {
      const bag = await getPackage(hidden, {}, admin);
      await bag.arrayBuffer();
      const refused = await getPackage(hidden, { "if-none-match": bag.headers.get("etag") ?? "" });
      assert.equal(refused.status, 401);
      assert.match(await refused.text(), /name="NotAuthorized"/);
    });

    it("a member's system metadata changes: a new tag, and the old one gets the bag", async () => {
      const before = await getPackage(map);
      await before.arrayBuffer();
      const etag = before.headers.get("etag") ?? "";
      const meta = await (await call(admin, "GET", `/meta/${enc(data)}`)).text();
      const renamed = await updateSysmeta(admin, data, editSysmeta(meta, { fileName: "renamed.csv" }));
      assert.equal(renamed.status, 200, await renamed.text());
      const after = await getPackage(map, { "if-none-match": etag });
      assert.equal(after.status, 200);
      await after.arrayBuffer();
      assert.notEqual(after.headers.get("etag"), etag);
    });

    it("curl: If-None-Match and -z (If-Modified-Since)", async () => {
      const target = url(anon, `/packages/${BAGIT_10}/${enc(map)}`);
      const curl = async (...args: string[]) =>
        (await run("curl", ["-sS", "-o", "/dev/null", "-D", "-", ...args, target])).stdout;
      const first = await curl();
      assert.match(first, /^HTTP\/1\.1 200/);
      const etag = /etag: (W\/"[^"]+")/i.exec(first)?.[1] ?? "";
      assert.match(await curl("-H", `If-None-Match: ${etag}`), /^HTTP\/1\.1 304/);
      assert.match(await curl("-z", "Fri, 01 Jan 2100 00:00:00 GMT"), /^HTTP\/1\.1 304/);
      assert.match(await curl("-z", "Thu, 01 Jan 1970 00:00:00 GMT"), /^HTTP\/1\.1 200/);
    });
  });
}
