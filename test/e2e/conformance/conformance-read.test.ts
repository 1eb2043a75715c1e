/**
 * DataONE MN web-tester checklist, ReadTestImplementations and MNReadTestImplementations: get, getSystemMetadata,
 * describe, getChecksum, listObjects; synchronizationFailed and getReplica. "No certificate" is an anonymous call,
 * the CN certificate a CN_SUBJECT token, a "non-member-node certificate" an ordinary user's token.
 */
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { before, describe, it } from "node:test";
import { type Caller, call, checkedError, create, enc, form, okXml } from "../../helpers/clients/client.ts";
import { elementText, uniquePid } from "../../helpers/data/sysmeta.ts";
import { CN_SUBJECT, testDialects, withTestNode } from "../../helpers/nodes/node.ts";
import { clockPast } from "../../helpers/time/eventually.ts";
import { validateXml } from "../../helpers/validation/xmllint.ts";

const USER = "CN=Read Tester,DC=example,DC=org";
const VERSIONS = ["v1", "v2"] as const;
const FAKE = "TestingNotFound:fake-identifier";

interface Info {
  identifier: string;
  formatId: string;
  modified: string;
}

function infos(list: string): Info[] {
  return [...list.matchAll(/<objectInfo>([\s\S]*?)<\/objectInfo>/g)].map(([, body = ""]) => ({
    identifier: elementText(body, "identifier") ?? "",
    formatId: elementText(body, "formatId") ?? "",
    modified: elementText(body, "dateSysMetadataModified") ?? "",
  }));
}

const attr = (xml: string, name: string) => Number(new RegExp(`\\s${name}="(\\d+)"`).exec(xml)?.[1]);

for (const dialect of testDialects()) {
  describe(`conformance: ReadTestImplementations, MNReadTestImplementations (${dialect})`, () => {
    const node = withTestNode(dialect);
    let anon: Caller;
    let user: Caller;
    let cn: Caller;
    const pid = uniquePid("read");
    const bytes = Buffer.from("IPCC Data Distribution Centre Results \nyear,value\n2001,3\n");
    const others = [uniquePid("csv"), uniquePid("eml")];
    before(async () => {
      anon = { baseUrl: node.baseUrl };
      user = { baseUrl: node.baseUrl, token: await node.token(USER) };
      cn = { baseUrl: node.baseUrl, token: await node.token(CN_SUBJECT) };
      assert.equal((await create(user, pid, bytes, { rightsHolder: USER })).status, 200);
      await clockPast();
      const [csv = "", eml = ""] = others;
      assert.equal((await create(user, csv, Buffer.from("a\n"), { rightsHolder: USER })).status, 200);
      await clockPast();
      const emlOptions = { rightsHolder: USER, formatId: "eml://ecoinformatics.org/eml-2.1.1" };
      assert.equal((await create(user, eml, Buffer.from("<eml/>\n"), emlOptions)).status, 200);
    });

    const list = async (c: Caller, query = "") => okXml(await call(c, "GET", `/object${query}`));

    for (const version of VERSIONS) {
      const v = (c: Caller): Caller => ({ ...c, version });

      it(`testGet (${version}): the object's bytes`, async () => {
        const response = await call(v(anon), "GET", `/object/${enc(pid)}`);
        assert.equal(response.status, 200);
        assert.deepEqual(Buffer.from(await response.arrayBuffer()), bytes);
      });

      it(`testGet_NotFound (${version}): NotFound 1020`, async () => {
        const error = await checkedError(await call(v(anon), "GET", `/object/${enc(FAKE)}`));
        assert.deepEqual([error.status, error.name, error.detailCode], [404, "NotFound", "1020"]);
      });

      it(`testGetSystemMetadata (${version}): a valid SystemMetadata`, async () => {
        const xml = await okXml(await call(v(anon), "GET", `/meta/${enc(pid)}`));
        assert.equal(elementText(xml, "identifier"), pid);
        assert.equal(elementText(xml, "size"), String(bytes.length));
      });

      it(`testGetSystemMetadata_NotFound (${version}): NotFound 1060`, async () => {
        const error = await checkedError(await call(v(anon), "GET", `/meta/${enc(FAKE)}`));
        assert.deepEqual([error.status, error.name, error.detailCode], [404, "NotFound", "1060"]);
      });

      it(`testDescribe (${version}): the DataONE headers`, async () => {
        const response = await call(v(anon), "HEAD", `/object/${enc(pid)}`);
        assert.equal(response.status, 200);
        assert.equal(response.headers.get("content-length"), String(bytes.length));
        const sha1 = createHash("sha1").update(bytes).digest("hex");
        assert.equal(response.headers.get("dataone-checksum"), `SHA-1,${sha1}`);
        assert.equal(response.headers.get("dataone-formatid"), "text/csv");
        assert.equal(response.headers.get("dataone-serialversion"), "1");
        assert.ok(!Number.isNaN(Date.parse(response.headers.get("last-modified") ?? "")));
      });

      it(`testDescribe_NotFound (${version}): 404 with NotFound 1380 headers`, async () => {
        const response = await call(v(anon), "HEAD", `/object/${enc(FAKE)}`);
        assert.equal(response.status, 404);
        assert.equal(response.headers.get("dataone-exception-name"), "NotFound");
        assert.equal(response.headers.get("dataone-exception-detailcode"), "1380");
      });

      it(`testGetChecksum (${version}): a Checksum that matches the bytes`, async () => {
        const xml = await okXml(await call(v(anon), "GET", `/checksum/${enc(pid)}`));
        assert.equal(elementText(xml, "checksum"), createHash("sha1").update(bytes).digest("hex"));
        const md5 = await okXml(await call(v(anon), "GET", `/checksum/${enc(pid)}?checksumAlgorithm=MD5`));
        assert.equal(elementText(md5, "checksum"), createHash("md5").update(bytes).digest("hex"));
      });

      it(`testGetChecksum_NotFound (${version}): NotFound 1420`, async () => {
        const error = await checkedError(await call(v(anon), "GET", `/checksum/${enc(FAKE)}`));
        assert.deepEqual([error.status, error.name, error.detailCode], [404, "NotFound", "1420"]);
      });

      it(`testListObjects (${version}): a valid ObjectList`, async () => {
        const xml = await list(v(anon));
        assert.ok(infos(xml).some((i) => i.identifier === pid));
      });

      it(`testListObjects_Slicing (${version}): count, total and the count parameter`, async () => {
        const all = await list(v(anon));
        const count = attr(all, "count");
        assert.equal(count, infos(all).length);
        assert.ok(attr(all, "total") >= count);
        const half = Math.floor(count / 2);
        const sliced = await list(v(anon), `?start=0&count=${half}`);
        assert.equal(infos(sliced).length, half);
        assert.equal(attr(sliced, "total"), attr(all, "total"));
        const rest = await list(v(anon), `?start=${half}`);
        assert.deepEqual(
          [...infos(sliced), ...infos(rest)].map((i) => i.identifier),
          infos(all).map((i) => i.identifier),
        );
      });

      it(`testListObjects_FromDateTest (${version}): fromDate excludes older objects`, async () => {
        const all = infos(await list(v(anon)));
        const first = all[0];
        const later = all.find((i) => first && Date.parse(i.modified) > Date.parse(first.modified));
        assert.ok(first && later, "two objects with different dateSysMetadataModified");
        const since = infos(await list(v(anon), `?fromDate=${later.modified}`));
        assert.ok(!since.some((i) => i.identifier === first.identifier));
        assert.ok(
          since.some((i) => i.identifier === later.identifier),
          "fromDate is inclusive",
        );
        const future = new Date(Date.parse(later.modified) + 60_000).toISOString();
        assert.equal(attr(await list(v(anon), `?fromDate=${future}`), "total"), 0);
      });

      it(`testListObjects_FormatIdFilteringTestFakeFormat (${version}): no records`, async () => {
        assert.equal(attr(await list(v(anon), "?formatId=fake_format"), "total"), 0);
      });

      it(`testListObjects_FormatIdFilteringTest (${version}): fewer records, all of the format`, async () => {
        const all = await list(v(anon));
        const format = "eml://ecoinformatics.org/eml-2.1.1";
        const filtered = await list(v(anon), `?formatId=${encodeURIComponent(format)}`);
        assert.ok(attr(filtered, "total") > 0 && attr(filtered, "total") < attr(all, "total"));
        assert.ok(infos(filtered).every((i) => i.formatId === format));
      });

      it(`testSynchronizationFailed_NoCert (${version}): NotAuthorized 2162 without a certificate`, async () => {
        const message =
          '<?xml version="1.0" encoding="UTF-8"?><error name="SynchronizationFailed" errorCode="500" ' +
          `detailCode="0" identifier="${pid}"><description>a message</description></error>`;
        await validateXml(message);
        const body = () => form({ message: { xml: message } });
        const refused = await checkedError(await call(v(anon), "POST", "/error", { body: body() }));
        assert.deepEqual([refused.name, refused.detailCode], ["NotAuthorized", "2162"]);
        // The CN the call is meant for is accepted.
        assert.equal((await call(v(cn), "POST", "/error", { body: body() })).status, 200);
      });

      it(`testGetReplica_PublicObject (${version}): the bytes, logged as replicate`, async () => {
        const response = await call(v(cn), "GET", `/replica/${enc(pid)}`);
        assert.equal(response.status, 200);
        assert.deepEqual(Buffer.from(await response.arrayBuffer()), bytes);
        const filter = version === "v2" ? "idFilter" : "pidFilter";
        const log = await okXml(await call(v(cn), "GET", `/log?${filter}=${encodeURIComponent(pid)}`));
        assert.match(log, /<event>replicate<\/event>/);
      });

      it(`testGetReplica_ValidCertificate_NotMN (${version}): NotAuthorized 2182`, async () => {
        // Even the object's rights holder is no node.
        const error = await checkedError(await call(v(user), "GET", `/replica/${enc(pid)}`));
        assert.deepEqual([error.name, error.detailCode], ["NotAuthorized", "2182"]);
      });

      it(`testGetReplica_NoCertificate (${version}): NotAuthorized or InvalidToken`, async () => {
        const error = await checkedError(await call(v(anon), "GET", `/replica/${enc(pid)}`));
        assert.ok(["NotAuthorized", "InvalidToken"].includes(error.name), error.body);
        const forged = await checkedError(
          await call({ ...v(anon), token: "not.a.token" }, "GET", `/replica/${enc(pid)}`),
        );
        assert.equal(forged.name, "InvalidToken");
      });

      it(`testGetReplica_NotFound (${version}): NotFound 2185 for a node caller`, async () => {
        // getReplica checks the caller's role first, so the fake identifier is asked by the CN.
        const error = await checkedError(await call(v(cn), "GET", `/replica/${enc(FAKE)}`));
        assert.deepEqual([error.status, error.name, error.detailCode], [404, "NotFound", "2185"]);
      });
    }
  });
}
