/**
 * DataONE MN web-tester checklist, MNStorageTestImplementations: create, update, archive, delete. The
 * "testRightsHolder" certificate is an ordinary user's token, "testSubmitter" another user's, "no certificate" an
 * anonymous call.
 */
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { before, describe, it } from "node:test";
import { fileURLToPath } from "node:url";
import { type Caller, call, checkedError, create, enc, okXml, update } from "../../helpers/clients/client.ts";
import { elementText, uniquePid } from "../../helpers/data/sysmeta.ts";
import { testDialects, withTestNode } from "../../helpers/nodes/node.ts";

const RIGHTS_HOLDER = "CN=testRightsHolder,DC=dataone,DC=org";
const SUBMITTER = "CN=testSubmitter,DC=dataone,DC=org";
const data = (s: string) => Buffer.from(`IPCC Data Distribution Centre Results \n${s}\n`);
const owned = { rightsHolder: RIGHTS_HOLDER };

const STRINGS = fileURLToPath(
  new URL("../../fixtures/third-party/test_unicode_strings.utf8.txt", import.meta.url),
);

/**
 * The "common-" and "path-" lines of DataONE's encoding test set, both columns (as typed and percent-escaped).
 * Forms with whitespace are left out: an Identifier may not contain whitespace.
 */
function encodingIdentifiers(): string[] {
  const ids = readFileSync(STRINGS, "utf8")
    .split("\n")
    .filter((line) => line.startsWith("common-") || line.startsWith("path-"))
    .flatMap((line) => line.split("\t"))
    .filter((id) => id !== "" && !/\s/u.test(id));
  return [...new Set(ids)];
}

for (const dialect of testDialects()) {
  describe(`conformance: MNStorageTestImplementations (${dialect})`, () => {
    const node = withTestNode(dialect);
    let holder: Caller;
    let submitter: Caller;
    let anon: Caller;
    before(async () => {
      holder = { baseUrl: node.baseUrl, token: await node.token(RIGHTS_HOLDER) };
      submitter = { baseUrl: node.baseUrl, token: await node.token(SUBMITTER) };
      anon = { baseUrl: node.baseUrl };
    });

    const meta = async (pid: string) => okXml(await call(holder, "GET", `/meta/${enc(pid)}`));
    const created = async (pid: string, bytes = data(pid)) => {
      const xml = await okXml(await create(holder, pid, bytes, owned));
      assert.equal(elementText(xml, "identifier"), pid);
    };

    for (const version of ["v1", "v2"] as const) {
      it(`testCreate (${version}): the returned identifier is the one given; get returns the text`, async () => {
        const pid = uniquePid("create");
        const xml = await okXml(await create({ ...holder, version }, pid, data("a,b"), owned));
        assert.equal(elementText(xml, "identifier"), pid);
        const text = await (await call({ ...holder, version }, "GET", `/object/${enc(pid)}`)).text();
        assert.ok(text.includes("IPCC Data Distribution Centre Results "));
      });

      it(`testCreate_NoCert (${version}): NotAuthorized 1100 or InvalidToken`, async () => {
        const pid = uniquePid("nocert");
        const anonymous = await checkedError(await create({ ...anon, version }, pid, data("x"), owned));
        assert.deepEqual([anonymous.name, anonymous.detailCode], ["NotAuthorized", "1100"]);
        const forged = { ...anon, version, token: "not.a.token" };
        assert.equal((await checkedError(await create(forged, pid, data("x"), owned))).name, "InvalidToken");
        assert.equal((await call(holder, "GET", `/meta/${enc(pid)}`)).status, 404);
      });
    }

    it("testCreateData_IdentifierEncoding: every identifier of the encoding test set", async () => {
      for (const raw of encodingIdentifiers()) {
        const pid = `${uniquePid("enc")}_${raw}`;
        await created(pid);
        const got = await call(holder, "GET", `/object/${enc(pid)}`);
        assert.equal(got.status, 200, pid);
        assert.deepEqual(Buffer.from(await got.arrayBuffer()), data(pid));
        assert.equal(elementText(await meta(pid), "identifier"), pid);
      }
    });

    it("testUpdate: obsoletes/obsoletedBy, dateSysMetadataModified, listObjects after the update", async () => {
      const original = uniquePid("orig");
      const newPid = uniquePid("new");
      await created(original);
      const dateCreated = elementText(await meta(original), "dateSysMetadataModified") ?? "";
      const xml = await okXml(await update(holder, original, newPid, data("v2"), owned));
      assert.equal(elementText(xml, "identifier"), newPid);
      const updated = await meta(newPid);
      assert.equal(elementText(updated, "obsoletes"), original);
      const updatedModified = elementText(updated, "dateSysMetadataModified") ?? "";
      assert.ok(Date.parse(updatedModified) >= Date.parse(dateCreated));
      const old = await meta(original);
      assert.equal(elementText(old, "obsoletedBy"), newPid);
      assert.ok(Date.parse(elementText(old, "dateSysMetadataModified") ?? "") > Date.parse(dateCreated));
      // The original shows in a listObjects window that starts at its creation (its sysmeta changed since).
      const list = await okXml(await call(holder, "GET", `/object?fromDate=${dateCreated}`));
      assert.ok(list.includes(`<identifier>${original}</identifier>`));
      assert.ok(list.includes(`<identifier>${newPid}</identifier>`));
    });

    it("testUpdate_badObsoletedByInfo: obsoletedBy instead of obsoletes is InvalidSystemMetadata 1300", async () => {
      const original = uniquePid("orig");
      const newPid = uniquePid("new");
      await created(original);
      const bad = { ...owned, obsoletes: "", obsoletedBy: original };
      const error = await checkedError(await update(holder, original, newPid, data("v2"), bad));
      assert.deepEqual([error.name, error.detailCode], ["InvalidSystemMetadata", "1300"]);
      assert.equal((await call(holder, "GET", `/meta/${enc(newPid)}`)).status, 404);
      assert.equal(elementText(await meta(original), "obsoletedBy"), undefined);
    });

    it("testUpdate_badObsoletesInfo: obsoletes naming another object is InvalidSystemMetadata 1300", async () => {
      const original = uniquePid("orig");
      await created(original);
      const bad = { ...owned, obsoletes: "phonyId" };
      const error = await checkedError(await update(holder, original, uniquePid("new"), data("v2"), bad));
      assert.deepEqual([error.name, error.detailCode], ["InvalidSystemMetadata", "1300"]);
    });

    it("testUpdate_NoCert: NotAuthorized 1200 or InvalidToken", async () => {
      const original = uniquePid("orig");
      await created(original);
      const error = await checkedError(await update(anon, original, uniquePid("new"), data("v2"), owned));
      assert.deepEqual([error.name, error.detailCode], ["NotAuthorized", "1200"]);
      const forged = { ...anon, token: "not.a.token" };
      const invalid = await checkedError(await update(forged, original, uniquePid("new"), data("v2"), owned));
      assert.equal(invalid.name, "InvalidToken");
      assert.equal(elementText(await meta(original), "obsoletedBy"), undefined);
    });

    it("testUpdate_NoRightsOnObsoleted: another subject is NotAuthorized 1200; obsoletedBy stays unset", async () => {
      const original = uniquePid("orig");
      await created(original);
      const theirs = { rightsHolder: SUBMITTER };
      const error = await checkedError(
        await update(submitter, original, uniquePid("new"), data("v2"), theirs),
      );
      assert.deepEqual([error.name, error.detailCode], ["NotAuthorized", "1200"]);
      assert.equal(elementText(await meta(original), "obsoletedBy"), undefined);
    });

    it("testArchive: returns the identifier; the system metadata says archived", async () => {
      const pid = uniquePid("archive");
      await created(pid);
      const xml = await okXml(await call(holder, "PUT", `/archive/${enc(pid)}`));
      assert.equal(elementText(xml, "identifier"), pid);
      assert.equal(elementText(await meta(pid), "archived"), "true");
    });

    it("testArchive_NotFound: NotFound 2911", async () => {
      const error = await checkedError(await call(holder, "PUT", `/archive/${enc(uniquePid("fake"))}`));
      assert.deepEqual([error.status, error.name, error.detailCode], [404, "NotFound", "2911"]);
    });

    it("testArchive_NoCert: NotAuthorized 2910 or InvalidToken; the object is not archived", async () => {
      const pid = uniquePid("archive");
      await created(pid);
      const error = await checkedError(await call(anon, "PUT", `/archive/${enc(pid)}`));
      assert.deepEqual([error.name, error.detailCode], ["NotAuthorized", "2910"]);
      assert.equal(elementText(await meta(pid), "archived"), "false");
    });

    it("testDelete_NoCert: NotAuthorized 2900 or InvalidToken; the object stays", async () => {
      const pid = uniquePid("delete");
      await created(pid);
      const error = await checkedError(await call(anon, "DELETE", `/object/${enc(pid)}`));
      assert.deepEqual([error.name, error.detailCode], ["NotAuthorized", "2900"]);
      const forged = await checkedError(
        await call({ ...anon, token: "not.a.token" }, "DELETE", `/object/${enc(pid)}`),
      );
      assert.equal(forged.name, "InvalidToken");
      assert.equal((await call(anon, "GET", `/object/${enc(pid)}`)).status, 200);
    });
  });
}
