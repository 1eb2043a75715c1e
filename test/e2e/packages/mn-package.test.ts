/**
 * MNPackage.getPackage over a real listening node: the bag is unzipped and every manifest and tagmanifest line
 * checked; the errors (unknown type, a member instead of a map, an unheld or unreadable member, missing bytes)
 * are clean DataONE exceptions sent before any zip byte.
 */
import assert from "node:assert/strict";
import { before, describe, it } from "node:test";
import { type Caller, call, checkedError, create, enc } from "../../helpers/clients/client.ts";
import { RESOURCE_MAP_FORMAT, resourceMapXml } from "../../helpers/data/resource-map.ts";
import { uniquePid } from "../../helpers/data/sysmeta.ts";
import { ADMIN, testDialects, withTestNode } from "../../helpers/nodes/node.ts";
import { unzip, verifyManifests } from "../../helpers/validation/bag.ts";
import { validateXml } from "../../helpers/validation/xmllint.ts";

const BAGIT_097 = enc("application/bagit-097");
const EML = Buffer.from(
  '<?xml version="1.0"?><eml:eml xmlns:eml="eml://ecoinformatics.org/eml-2.1.1" packageId="p" system="s"><dataset><title>Lake temperatures</title></dataset></eml:eml>',
);

for (const dialect of testDialects()) {
  describe(`MNPackage.getPackage (${dialect})`, () => {
    const node = withTestNode(dialect);
    let admin: Caller;
    let anon: Caller;
    const metadata = uniquePid("eml");
    const data = [uniquePid("csv"), uniquePid("csv"), uniquePid("bin")];
    const map = uniquePid("map");
    const contents = [Buffer.from("t,v\n1,2\n"), Buffer.from("t,v\n3,4\n"), Buffer.alloc(200_000, 7)];

    const put = async (pid: string, bytes: Buffer, options: Parameters<typeof create>[3] = {}) => {
      const response = await create(admin, pid, bytes, options);
      assert.equal(response.status, 200, await response.text());
    };
    const putMap = (pid: string, meta: string, members: string[], readers?: string[]) =>
      put(pid, Buffer.from(resourceMapXml(pid, meta, members)), {
        formatId: RESOURCE_MAP_FORMAT,
        ...(readers ? { readers } : {}),
      });

    before(async () => {
      admin = { baseUrl: node.baseUrl, token: await node.token(ADMIN) };
      anon = { baseUrl: node.baseUrl };
      await put(metadata, EML, { formatId: "eml://ecoinformatics.org/eml-2.1.1", fileName: "metadata.xml" });
      // Two members claim the same name, one an unsafe one: both must land as distinct, safe files.
      await put(data[0] as string, contents[0] as Buffer, { fileName: "temps.csv" });
      await put(data[1] as string, contents[1] as Buffer, { fileName: "TEMPS.csv" });
      await put(data[2] as string, contents[2] as Buffer, {
        formatId: "application/octet-stream",
        fileName: "../../etc/passwd",
      });
      await putMap(map, metadata, data);
    });

    it("streams a BagIt 0.97 zip whose every manifest line checks out", async () => {
      const response = await call(anon, "GET", `/packages/${BAGIT_097}/${enc(map)}`);
      assert.equal(response.status, 200, await response.clone().text());
      assert.equal(response.headers.get("content-type"), "application/zip");
      assert.match(response.headers.get("content-disposition") ?? "", /^attachment; filename="/);
      const files = await unzip(Buffer.from(await response.arrayBuffer()));
      const { payload, tags } = verifyManifests(files);

      assert.equal(
        files.get("bagit.txt")?.toString(),
        "BagIt-Version: 0.97\nTag-File-Character-Encoding: UTF-8\n",
      );
      const info = files.get("bag-info.txt")?.toString() ?? "";
      const octets = EML.length + contents.reduce((sum, c) => sum + c.length, 0);
      assert.match(info, new RegExp(`^Payload-Oxum: ${octets}\\.4$`, "m"));
      assert.match(info, new RegExp(`^External-Identifier: ${map}$`, "m"));

      assert.deepEqual(
        payload.sort(),
        ["data/TEMPS_2.csv", "data/_._.._etc_passwd", "data/metadata.xml", "data/temps.csv"].sort(),
      );
      assert.deepEqual(files.get("data/temps.csv"), contents[0]);
      assert.deepEqual(files.get("data/TEMPS_2.csv"), contents[1]);
      assert.deepEqual(files.get("data/_._.._etc_passwd"), contents[2]);
      for (const name of [
        "bagit.txt",
        "bag-info.txt",
        "manifest-md5.txt",
        "manifest-sha256.txt",
        "README.html",
        "metadata/oai-ore.xml",
      ]) {
        assert.ok(tags.includes(name), `tagmanifest lists ${name}`);
      }
      const segments = [...files.keys()].flatMap((name) => name.split("/"));
      assert.ok(
        segments.every((segment) => segment !== ".." && segment !== "."),
        "no path leaves the bag",
      );
      const sysmetas = [...files.keys()].filter((name) => name.startsWith("metadata/sysmeta/"));
      assert.equal(sysmetas.length, 4);
      for (const name of sysmetas) await validateXml(files.get(name)?.toString() ?? "");
      assert.match(files.get("README.html")?.toString() ?? "", /data\/metadata\.xml<\/a>/);
      assert.match(files.get("metadata/oai-ore.xml")?.toString() ?? "", /ore\/terms\/ResourceMap/);
    });

    it("writes BagIt 1.0 when asked, and accepts the package type unencoded", async () => {
      const response = await call(anon, "GET", `/packages/application/bagit-1.0/${enc(map)}`);
      assert.equal(response.status, 200);
      const files = await unzip(Buffer.from(await response.arrayBuffer()));
      assert.match(files.get("bagit.txt")?.toString() ?? "", /^BagIt-Version: 1\.0\n/);
      verifyManifests(files);
    });

    it("refuses an unknown package type with InvalidRequest naming the supported ones", async () => {
      const error = await checkedError(
        await call(anon, "GET", `/packages/${enc("application/x-tar")}/${enc(map)}`),
      );
      assert.deepEqual([error.status, error.name, error.detailCode], [400, "InvalidRequest", "2873"]);
      assert.match(error.body, /application\/bagit-097, application\/bagit-1\.0/);
    });

    it("refuses a member's pid (not a resource map) with InvalidRequest", async () => {
      const error = await checkedError(await call(anon, "GET", `/packages/${BAGIT_097}/${enc(metadata)}`));
      assert.deepEqual([error.status, error.name, error.detailCode], [400, "InvalidRequest", "2873"]);
      assert.match(error.body, /not a resource map/);
    });

    it("a member this node no longer holds is NotFound before any byte of the bag", async () => {
      // A map is created only once its members are here (package-rule.test.ts); one removed since goes missing.
      const gone = uniquePid("gone");
      await put(gone, Buffer.from(`removed later ${gone}`));
      const broken = uniquePid("map");
      await putMap(broken, metadata, [data[0] as string, gone]);
      const removed = await call(admin, "DELETE", `/object/${enc(gone)}`);
      assert.equal(removed.status, 200, await removed.text());
      const error = await checkedError(await call(anon, "GET", `/packages/${BAGIT_097}/${enc(broken)}`));
      assert.deepEqual([error.status, error.name, error.detailCode], [404, "NotFound", "2875"]);
      assert.match(error.body, new RegExp(gone));
    });

    it("a member the caller may not read refuses the package with NotAuthorized; its reader gets it", async () => {
      const secret = uniquePid("secret");
      await put(secret, Buffer.from("private"), { readers: ["CN=alice"] });
      const restricted = uniquePid("map");
      await putMap(restricted, metadata, [secret]);
      const error = await checkedError(await call(anon, "GET", `/packages/${BAGIT_097}/${enc(restricted)}`));
      assert.deepEqual([error.status, error.name, error.detailCode], [401, "NotAuthorized", "2872"]);
      assert.match(error.body, new RegExp(secret));
      const alice = { baseUrl: node.baseUrl, token: await node.token("CN=alice") };
      const response = await call(alice, "GET", `/packages/${BAGIT_097}/${enc(restricted)}`);
      assert.equal(response.status, 200);
      verifyManifests(await unzip(Buffer.from(await response.arrayBuffer())));
    });

    it("bytes missing from the store are a ServiceFailure, not a broken zip", async () => {
      const lost = uniquePid("lost");
      const bytes = Buffer.from(`unique content ${lost}`);
      await put(lost, bytes);
      const lostMap = uniquePid("map");
      await putMap(lostMap, metadata, [lost]);
      const stored = await node.node.ctx.db.objects.get(lost);
      await node.node.ctx.store.remove(stored?.contentKey ?? "");
      const error = await checkedError(await call(anon, "GET", `/packages/${BAGIT_097}/${enc(lostMap)}`));
      assert.deepEqual([error.status, error.name, error.detailCode], [500, "ServiceFailure", "2871"]);
      assert.match(error.body, new RegExp(lost));
    });

    it("an unknown map is NotFound (2875)", async () => {
      const error = await checkedError(await call(anon, "GET", `/packages/${BAGIT_097}/no-such-map`));
      assert.deepEqual([error.status, error.name, error.detailCode], [404, "NotFound", "2875"]);
    });

    it("the Node document advertises MNView and MNPackage", async () => {
      const xml = await (await call(anon, "GET", "/node")).text();
      assert.match(xml, /<service name="MNView" version="v2" available="true"/);
      assert.match(xml, /<service name="MNPackage" version="v2" available="true"/);
    });
  });
}
