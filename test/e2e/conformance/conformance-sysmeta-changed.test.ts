/**
 * DataONE MN web-tester checklist, MNSystemMetadataChangedMethodTestImplementations and the MN-side item of
 * MNSystemMetadataMutabilityImplementations. The CN certificates are tokens: CN_SUBJECT is the node's configured
 * CN; the other environments' CN subjects are CN-like subjects the node was not told about. The "ITK user" and
 * "rightsHolder" certificates are ordinary users' tokens.
 *
 * MNSystemMetadataMutabilityImplementations' other items (setReplicationStatus, updateReplicationMetadata,
 * deleteReplicationMetadata, setReplicationPolicy, setAccessPolicy, setRightsHolder) are Coordinating Node
 * operations: a Member Node serves none of them, so they do not apply here.
 */
import assert from "node:assert/strict";
import { before, describe, it } from "node:test";
import { type Caller, call, checkedError, create, enc, form, okXml } from "../../helpers/clients/client.ts";
import { elementText, uniquePid } from "../../helpers/data/sysmeta.ts";
import { CN_SUBJECT, testDialects, withTestNode } from "../../helpers/nodes/node.ts";

const RIGHTS_HOLDER = "CN=testRightsHolder,DC=dataone,DC=org";
const ITK_USER = "CN=testPerson,DC=dataone,DC=org";
/** The CNs of other DataONE environments (dev, sandbox, stage), unknown to this node. */
const OTHER_CNS = [
  "CN=urn:node:cnDevUNM1,DC=dataone,DC=org",
  "CN=urn:node:cnSandboxORC1,DC=dataone,DC=org",
  "CN=urn:node:cnStageUNM1,DC=dataone,DC=org",
];
const owned = { rightsHolder: RIGHTS_HOLDER };

for (const dialect of testDialects()) {
  describe(`conformance: MNSystemMetadataChangedMethodTestImplementations (${dialect})`, () => {
    const node = withTestNode(dialect);
    let cn: Caller;
    let holder: Caller;
    let anon: Caller;
    const pid = uniquePid("public-read");
    before(async () => {
      cn = { baseUrl: node.baseUrl, token: await node.token(CN_SUBJECT) };
      holder = { baseUrl: node.baseUrl, token: await node.token(RIGHTS_HOLDER) };
      anon = { baseUrl: node.baseUrl };
      assert.equal((await create(holder, pid, Buffer.from("public\n"), owned)).status, 200);
    });

    const meta = async (id: string) => okXml(await call(holder, "GET", `/meta/${enc(id)}`));

    /** v2 names the identifier part id, v1 pid (as d1_python's MNClient sends it). */
    const changed = (c: Caller, id: string, modified: Date, version: "v1" | "v2" = "v2") =>
      call({ ...c, version }, "POST", "/dirtySystemMetadata", {
        body: form({
          [version === "v2" ? "id" : "pid"]: id,
          serialVersion: "10",
          dateSysMetaLastModified: modified.toISOString(),
        }),
      });

    it("testSystemMetadataChanged: of the CNs of several environments only this node's CN succeeds", async () => {
      for (const version of ["v1", "v2"] as const) {
        const outcomes: string[] = [];
        for (const subject of [CN_SUBJECT, ...OTHER_CNS]) {
          const caller = { baseUrl: node.baseUrl, token: await node.token(subject) };
          const response = await changed(caller, pid, new Date(), version);
          if (response.status === 200) {
            assert.match(await response.text(), /^(true)?$/);
            outcomes.push("success");
          } else {
            const error = await checkedError(response);
            assert.ok(["NotAuthorized", "InvalidRequest"].includes(error.name), error.body);
            outcomes.push(error.name);
          }
        }
        assert.deepEqual(outcomes, ["success", "NotAuthorized", "NotAuthorized", "NotAuthorized"]);
      }
    });

    it("testSystemMetadataChanged_EarlierDate: a date before dateSysMetadataModified is no error", async () => {
      const before = await meta(pid);
      const modified = Date.parse(elementText(before, "dateSysMetadataModified") ?? "");
      assert.equal((await changed(cn, pid, new Date(modified - 10_000))).status, 200);
      assert.equal(await meta(pid), before, "the node's copy is unchanged");
    });

    it("testSystemMetadataChanged_authenticatedITKuser: a non-CN subject is NotAuthorized 1331", async () => {
      const itk = { baseUrl: node.baseUrl, token: await node.token(ITK_USER) };
      const own = uniquePid("itk");
      assert.equal((await create(itk, own, Buffer.from("mine\n"), { rightsHolder: ITK_USER })).status, 200);
      const error = await checkedError(await changed(itk, own, new Date()));
      assert.deepEqual([error.name, error.detailCode], ["NotAuthorized", "1331"]);
    });

    it("testSystemMetadataChanged_withCreate: create, then systemMetadataChanged, no error", async () => {
      const fresh = uniquePid("with-create");
      assert.equal((await create(cn, fresh, Buffer.from("cn\n"), owned)).status, 200);
      const response = await changed(cn, fresh, new Date());
      assert.equal(response.status, 200, await response.text());
    });

    it("testSystemMetadataChanged_NotAuthPuplic: NotAuthorized or InvalidToken without a certificate", async () => {
      const error = await checkedError(await changed(anon, "bogusPid", new Date()));
      assert.deepEqual([error.name, error.detailCode], ["NotAuthorized", "1331"]);
      const forged = await checkedError(
        await changed({ ...anon, token: "not.a.token" }, "bogusPid", new Date()),
      );
      assert.deepEqual([forged.name, forged.detailCode], ["InvalidToken", "1332"]);
    });

    it("testSystemMetadataChanged_NotAuthRightsHolder: the rights holder is NotAuthorized 1331", async () => {
      for (const id of ["bogusPid", pid]) {
        const error = await checkedError(await changed(holder, id, new Date()));
        assert.deepEqual([error.name, error.detailCode], ["NotAuthorized", "1331"]);
      }
    });

    it("testSystemMetadataChanged_InvalidPid: a bogus pid is InvalidRequest 1334", async () => {
      for (const version of ["v1", "v2"] as const) {
        const error = await checkedError(await changed(cn, "bogusPid", new Date(), version));
        assert.deepEqual([error.name, error.detailCode], ["InvalidRequest", "1334"]);
      }
    });

    it("testRegisterSystemMetadata_dateModified (MNSystemMetadataMutability): create sets it, nothing else moves it", async () => {
      const fresh = uniquePid("date-modified");
      const stale = {
        ...owned,
        extra: "<dateSysMetadataModified>2001-01-01T00:00:00Z</dateSysMetadataModified>",
      };
      const started = Date.now();
      assert.equal((await create(holder, fresh, Buffer.from("dates\n"), stale)).status, 200);
      const created = await meta(fresh);
      const modified = elementText(created, "dateSysMetadataModified") ?? "";
      assert.ok(Date.parse(modified) >= started - 1000, `the node sets the date (${modified})`);
      assert.equal(modified, elementText(created, "dateUploaded"));
      // Reads, the CN's notification and listings leave it alone.
      assert.equal((await call(anon, "GET", `/object/${enc(fresh)}`)).status, 200);
      assert.equal((await call(anon, "HEAD", `/object/${enc(fresh)}`)).status, 200);
      assert.equal((await call(anon, "GET", `/checksum/${enc(fresh)}`)).status, 200);
      assert.equal((await call(anon, "GET", `/isAuthorized/${enc(fresh)}?action=read`)).status, 200);
      assert.equal((await changed(cn, fresh, new Date())).status, 200);
      assert.equal(await meta(fresh), created);
      const list = await okXml(await call(anon, "GET", `/object?identifier=${encodeURIComponent(fresh)}`));
      assert.equal(elementText(list, "dateSysMetadataModified"), modified);
    });
  });
}
