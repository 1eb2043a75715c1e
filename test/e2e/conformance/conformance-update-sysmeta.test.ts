/**
 * DataONE MN web-tester checklist, UpdateSystemMetadataTestImplementations: updateSystemMetadata's request
 * checks. Each test reads the system metadata, changes one thing and sends it back as the rights holder (the
 * checklist's "testRightsHolder" certificate is a token). The Java suite also adds 1 to serialVersion in most of
 * these; d1node requires the current serialVersion (docs/decisions.md), so the tests send it unchanged and each
 * failure is the one the item is about.
 */
import assert from "node:assert/strict";
import { before, describe, it } from "node:test";
import {
  type Caller,
  call,
  checkedError,
  create,
  enc,
  okXml,
  updateSysmeta,
} from "../../helpers/clients/client.ts";
import { editSysmeta, elementText, uniquePid } from "../../helpers/data/sysmeta.ts";
import { testDialects, withTestNode } from "../../helpers/nodes/node.ts";

const RIGHTS_HOLDER = "CN=testRightsHolder,DC=dataone,DC=org";
const owned = { rightsHolder: RIGHTS_HOLDER };

for (const dialect of testDialects()) {
  describe(`conformance: UpdateSystemMetadataTestImplementations (${dialect})`, () => {
    const node = withTestNode(dialect);
    let holder: Caller;
    before(async () => {
      holder = { baseUrl: node.baseUrl, token: await node.token(RIGHTS_HOLDER) };
    });

    const meta = async (pid: string) => okXml(await call(holder, "GET", `/meta/${enc(pid)}`));
    /** A fresh object (optionally in a series) and its system metadata as the node serves it. */
    const procure = async (seriesId?: string) => {
      const pid = uniquePid("usm");
      const options = { ...owned, ...(seriesId ? { seriesId } : {}) };
      assert.equal((await create(holder, pid, Buffer.from(`${pid}\n`), options)).status, 200);
      return { pid, xml: await meta(pid) };
    };
    /** The update must fail with InvalidRequest 4869 naming `about`, and change nothing. */
    const refused = async (pid: string, before: string, response: Response, about: RegExp) => {
      const error = await checkedError(response);
      assert.deepEqual([error.name, error.detailCode], ["InvalidRequest", "4869"], error.body);
      assert.match(error.body, about);
      assert.equal(await meta(pid), before);
    };

    it("testUpdateSystemMetadata_InvalidRequest_NoPid: an empty identifier is InvalidRequest", async () => {
      const { pid, xml } = await procure();
      const response = await updateSysmeta(holder, pid, editSysmeta(xml, { identifier: "" }));
      await refused(pid, xml, response, /identifier/);
    });

    it("testUpdateSystemMetadata_InvalidRequest_NoSerialVersion: no serialVersion is InvalidRequest", async () => {
      const { pid, xml } = await procure();
      const response = await updateSysmeta(holder, pid, editSysmeta(xml, { serialVersion: null }));
      await refused(pid, xml, response, /serialVersion/);
    });

    it("testUpdateSystemMetadata_NoSerialVersion: refused too (docs/decisions.md)", async () => {
      // The checklist contradicts itself: this item expects success with serialVersion null, the previous
      // one InvalidRequest. docs/decisions.md says serialVersion "must be present and equal the current one",
      // so this follows testUpdateSystemMetadata_InvalidRequest_NoSerialVersion.
      const { pid, xml } = await procure();
      const response = await updateSysmeta(holder, pid, editSysmeta(xml, { serialVersion: null }));
      await refused(pid, xml, response, /serialVersion/);
      const ok = await updateSysmeta(holder, pid, xml);
      assert.equal(ok.status, 200, "the same document with its serialVersion is accepted");
    });

    it("testUpdateSystemMetadata_InvalidRequest_PidMismatch: pid and identifier differ", async () => {
      const { pid, xml } = await procure();
      const response = await updateSysmeta(holder, pid, editSysmeta(xml, { identifier: "bogus_pid" }));
      await refused(pid, xml, response, /identifier|differs/);
    });

    it("testUpdateSystemMetadata_InvalidSystemMetadata_SysmetaUnmodified: identical sysmeta is accepted", async () => {
      const { pid, xml } = await procure();
      const response = await updateSysmeta(holder, pid, xml);
      assert.equal(response.status, 200, await response.text());
      const after = await meta(pid);
      assert.equal(elementText(after, "serialVersion"), "2");
      assert.equal(elementText(after, "rightsHolder"), RIGHTS_HOLDER);
    });

    it("testUpdateSystemMetadata_InvalidRequest_ModifiedIdentifier: pid and identifier both changed", async () => {
      const { pid, xml } = await procure();
      const modified = `${pid}_MODIFIED`;
      const response = await updateSysmeta(holder, pid, editSysmeta(xml, { identifier: modified }));
      await refused(pid, xml, response, /identifier|differs/);
      // The same change sent to the modified identifier names no object here.
      const other = await checkedError(
        await updateSysmeta(holder, modified, editSysmeta(xml, { identifier: modified })),
      );
      assert.deepEqual([other.name, other.detailCode], ["NotFound", "0"]);
    });

    const immutable: [string, string, Record<string, string | null>, RegExp][] = [
      ["testUpdateSystemMetadata_InvalidRequest_ModifiedSize", "size", { size: "1" }, /size/],
      [
        "testUpdateSystemMetadata_InvalidRequest_ModifiedChecksum",
        "checksum",
        { checksum: '<checksum algorithm="MD5">0123456789abcdef0123456789abcdef</checksum>' },
        /checksum/,
      ],
      [
        "testUpdateSystemMetadata_InvalidRequest_ModifiedSubmitter",
        "submitter",
        { submitter: "bogusSubject" },
        /submitter/,
      ],
      [
        "testUpdateSystemMetadata_InvalidRequest_ModifiedDateUploaded",
        "dateUploaded",
        { dateUploaded: new Date(Date.now() + 86_400_000).toISOString() },
        /dateUploaded/,
      ],
      [
        "testUpdateSystemMetadata_InvalidRequest_ModifiedOriginMN",
        "originMemberNode",
        { originMemberNode: "urn:node:bogusNode" },
        /originMemberNode/,
      ],
      [
        "testUpdateSystemMetadata_InvalidRequest_NullOriginMN",
        "originMemberNode",
        { originMemberNode: null },
        /originMemberNode/,
      ],
    ];
    for (const [name, field, change, about] of immutable) {
      it(`${name}: ${field} cannot change`, async () => {
        const { pid, xml } = await procure();
        await refused(pid, xml, await updateSysmeta(holder, pid, editSysmeta(xml, change)), about);
      });
    }

    it("testUpdateSystemMetadata_InvalidRequest_ModifiedSeriesId: a SID may be added once, never changed", async () => {
      // As in the Java test: setting a seriesId on an object without one succeeds; changing it then fails.
      const { pid, xml } = await procure();
      const first = uniquePid("sid");
      const added = await updateSysmeta(holder, pid, editSysmeta(xml, { seriesId: first }));
      assert.equal(added.status, 200, await added.text());
      const withSid = await meta(pid);
      assert.equal(elementText(withSid, "seriesId"), first);
      assert.equal(elementText(await meta(first), "identifier"), pid, "the new SID resolves");
      const changed = await updateSysmeta(holder, pid, editSysmeta(withSid, { seriesId: uniquePid("sid") }));
      await refused(pid, withSid, changed, /seriesId/);
      const removed = await updateSysmeta(holder, pid, editSysmeta(withSid, { seriesId: null }));
      await refused(pid, withSid, removed, /seriesId/);
      // An object created with a SID cannot change it either.
      const series = await procure(uniquePid("sid"));
      const other = await updateSysmeta(
        holder,
        series.pid,
        editSysmeta(series.xml, { seriesId: uniquePid("sid") }),
      );
      await refused(series.pid, series.xml, other, /seriesId/);
    });

    it("testUpdateSystemMetadata_InvalidRequest_ModifiedSeriesId: an added SID must be new", async () => {
      const taken = await procure(uniquePid("sid"));
      const { pid, xml } = await procure();
      for (const sid of [elementText(taken.xml, "seriesId") ?? "", taken.pid, pid]) {
        const error = await checkedError(
          await updateSysmeta(holder, pid, editSysmeta(xml, { seriesId: sid })),
        );
        assert.equal(error.name, "InvalidSystemMetadata", error.body);
        assert.equal(await meta(pid), xml);
      }
    });

    it("testUpdateSystemMetadata_NotFound: a pid the node does not hold is NotFound", async () => {
      const { xml } = await procure();
      const bogus = uniquePid("bogus");
      const error = await checkedError(
        await updateSysmeta(holder, bogus, editSysmeta(xml, { identifier: bogus })),
      );
      assert.equal(error.status, 404);
      assert.equal(error.name, "NotFound");
    });
  });
}
