/**
 * DataONE MN web-tester checklist, SidCommonTestImplementations (testView is MNView, not served) and
 * SidMNTestImplementations (testGetPackage is MNPackage, not served; testSystemMetadataChanged is "not yet
 * implemented" there). Every call runs over the 15 PID-chain cases of the Java suite's setupMNCase1..15
 * (the Java suite enables only case 1). The checklist's cnSubmitter is a CN_SUBJECT token.
 */
import assert from "node:assert/strict";
import { before, describe, it } from "node:test";
import { type Caller, call, checkedError, create, enc, okXml, update } from "../../helpers/clients/client.ts";
import { elementText, uniquePid } from "../../helpers/data/sysmeta.ts";
import { CN_SUBJECT, testDialects, withTestNode } from "../../helpers/nodes/node.ts";

const RIGHTS_HOLDER = "CN=testRightsHolder,DC=dataone,DC=org";
const OTHER = "CN=testPerson,DC=dataone,DC=org";
const owned = { rightsHolder: RIGHTS_HOLDER };

/** c P S: create P in series S; u P Q S: update P to Q in series S; d P: delete P (as a CN). */
const CASES: { steps: string; sid: string; head: string; pids: number }[] = [
  { steps: "c P1 S1", sid: "S1", head: "P1", pids: 1 },
  { steps: "c P1 S1; u P1 P2 S1", sid: "S1", head: "P2", pids: 2 },
  { steps: "c P1 S1; u P1 P2 S2", sid: "S1", head: "P1", pids: 1 },
  { steps: "c P1 S1; u P1 P2 S2", sid: "S2", head: "P2", pids: 1 },
  { steps: "c P1 S1; u P1 P2 S2; d P1", sid: "S2", head: "P2", pids: 1 },
  { steps: "c P1 S1; u P1 P2 S2; d P2", sid: "S1", head: "P1", pids: 1 },
  { steps: "c P1 S1; u P1 P2 S1; u P2 P3 S1", sid: "S1", head: "P3", pids: 3 },
  { steps: "c P1 S1; u P1 P2 S1; u P2 P3 S1; d P2", sid: "S1", head: "P3", pids: 2 },
  { steps: "c P1 S1; u P1 P2 S1; u P2 P3 S1; d P3", sid: "S1", head: "P2", pids: 2 },
  { steps: "c P1 S1; u P1 P2 S1; u P2 P3 S2", sid: "S2", head: "P3", pids: 1 },
  { steps: "c P1 S1; u P1 P2 S2; u P2 P3 S2", sid: "S2", head: "P3", pids: 2 },
  { steps: "c P1 S1; u P1 P2 S1; u P2 P3 S2; d P2", sid: "S1", head: "P1", pids: 1 },
  { steps: "c P1 S1; u P1 P2 S1; u P2 P3 S2; d P3", sid: "S1", head: "P2", pids: 2 },
  { steps: "c P1 S1; u P1 P2 S2; u P2 P3 S2; d P2", sid: "S2", head: "P3", pids: 1 },
  { steps: "c P1 S1; u P1 P2 S2; u P2 P3 S2; d P3", sid: "S2", head: "P2", pids: 1 },
];

const bytesOf = (pid: string) => Buffer.from(`object ${pid}\n`);

for (const dialect of testDialects()) {
  describe(`conformance: SidCommonTestImplementations, SidMNTestImplementations (${dialect})`, () => {
    const node = withTestNode(dialect);
    let holder: Caller;
    let cn: Caller;
    let other: Caller;
    let anon: Caller;
    before(async () => {
      holder = { baseUrl: node.baseUrl, token: await node.token(RIGHTS_HOLDER) };
      cn = { baseUrl: node.baseUrl, token: await node.token(CN_SUBJECT) };
      other = { baseUrl: node.baseUrl, token: await node.token(OTHER) };
      anon = { baseUrl: node.baseUrl };
    });

    const ok = async (response: Response) => assert.equal(response.status, 200, await response.text());

    /** Runs a case's steps with fresh identifiers; the SID under test and its expected head PID. */
    async function setup(n: number): Promise<{ sid: string; head: string; pids: number }> {
      const c = CASES[n - 1];
      assert.ok(c);
      const names = new Map<string, string>();
      const id = (name: string) => {
        if (!names.has(name)) names.set(name, uniquePid(`case${n}-${name}`));
        return names.get(name) ?? "";
      };
      for (const step of c.steps.split("; ")) {
        const [op, a = "", b = "", s = ""] = step.split(" ");
        if (op === "c") await ok(await create(holder, id(a), bytesOf(id(a)), { ...owned, seriesId: id(b) }));
        if (op === "u")
          await ok(await update(holder, id(a), id(b), bytesOf(id(b)), { ...owned, seriesId: id(s) }));
        if (op === "d") await ok(await call(cn, "DELETE", `/object/${enc(id(a))}`));
      }
      return { sid: id(c.sid), head: id(c.head), pids: c.pids };
    }

    const each = (name: string, body: (n: number) => Promise<void>) => {
      it(name, async () => {
        for (let n = 1; n <= CASES.length; n++) {
          try {
            await body(n);
          } catch (error) {
            throw new Error(`case ${n} (${CASES[n - 1]?.steps}): ${String(error)}`, { cause: error });
          }
        }
      });
    };

    each("testGetSystemMetadata: a SID gives the head PID's system metadata", async (n) => {
      const { sid, head } = await setup(n);
      const xml = await okXml(await call(holder, "GET", `/meta/${enc(sid)}`));
      assert.equal(elementText(xml, "identifier"), head);
    });

    each("testGet: get(SID) and get(head PID) give the same bytes", async (n) => {
      const { sid, head } = await setup(n);
      const bySid = Buffer.from(await (await call(holder, "GET", `/object/${enc(sid)}`)).arrayBuffer());
      const byPid = Buffer.from(await (await call(holder, "GET", `/object/${enc(head)}`)).arrayBuffer());
      assert.deepEqual(bySid, byPid);
      assert.deepEqual(byPid, bytesOf(head));
    });

    each("testDescribe: describe(SID) and describe(head PID) agree", async (n) => {
      const { sid, head } = await setup(n);
      const bySid = await call(holder, "HEAD", `/object/${enc(sid)}`);
      const byPid = await call(holder, "HEAD", `/object/${enc(head)}`);
      assert.equal(bySid.status, 200);
      for (const header of ["dataone-checksum", "content-length", "dataone-serialversion", "last-modified"]) {
        assert.equal(bySid.headers.get(header), byPid.headers.get(header), header);
      }
    });

    it("testCreate: create with a SID; getSystemMetadata(SID) names the new PID", async () => {
      const [pid, sid] = [uniquePid("P1"), uniquePid("S1")];
      await okXml(await create(holder, pid, bytesOf(pid), { ...owned, seriesId: sid }));
      const xml = await okXml(await call(holder, "GET", `/meta/${enc(sid)}`));
      assert.equal(elementText(xml, "identifier"), pid);
      assert.equal(elementText(xml, "seriesId"), sid);
    });

    each("testDelete: delete(SID) removes the head PID", async (n) => {
      const { sid, head } = await setup(n);
      const deleted = await okXml(await call(cn, "DELETE", `/object/${enc(sid)}`));
      assert.equal(elementText(deleted, "identifier"), head);
      const gone = await checkedError(await call(holder, "GET", `/object/${enc(head)}`));
      assert.equal(gone.name, "NotFound");
    });

    each(
      "testListObjects: identifier=head PID lists 1, identifier=SID every PID of the series",
      async (n) => {
        const { sid, head, pids } = await setup(n);
        const count = async (id: string) => {
          const xml = await okXml(await call(holder, "GET", `/object?identifier=${encodeURIComponent(id)}`));
          return Number(/\scount="(\d+)"/.exec(xml)?.[1]);
        };
        assert.equal(await count(head), 1);
        assert.equal(await count(sid), pids);
      },
    );

    each("testIsAuthorized: the SID and the head PID hold the same permissions", async (n) => {
      const { sid, head } = await setup(n);
      const outcome = async (c: Caller, id: string, action: string) => {
        const response = await call(c, "GET", `/isAuthorized/${enc(id)}?action=${action}`);
        if (response.status === 200) return "true";
        const error = await checkedError(response);
        return `${error.name}:${error.detailCode}`;
      };
      for (const caller of [cn, holder, other, anon]) {
        for (const action of ["read", "write", "changePermission"]) {
          assert.equal(await outcome(caller, sid, action), await outcome(caller, head, action), action);
        }
      }
      assert.equal(await outcome(other, sid, "write"), "NotAuthorized:1820");
    });

    each(
      "testUpdate (SidMN): update(SID) is InvalidRequest 1202 once the head PID is archived",
      async (n) => {
        const { sid, head } = await setup(n);
        await okXml(await call(holder, "PUT", `/archive/${enc(head)}`));
        const newPid = uniquePid("P9");
        const error = await checkedError(
          await update(holder, sid, newPid, bytesOf(newPid), { ...owned, obsoletes: head }),
        );
        assert.deepEqual([error.name, error.detailCode], ["InvalidRequest", "1202"]);
        assert.equal((await call(holder, "GET", `/meta/${enc(newPid)}`)).status, 404);
      },
    );

    it("testSidReuse: P1(S1) <-> P2(S2) <-> P3(S1) is InvalidSystemMetadata 1300", async () => {
      const [p1, p2, p3, s1, s2] = ["P1", "P2", "P3", "S1", "S2"].map((t) => uniquePid(t));
      assert.ok(p1 && p2 && p3 && s1 && s2);
      await ok(await create(holder, p1, bytesOf(p1), { ...owned, seriesId: s1 }));
      await ok(await update(holder, p1, p2, bytesOf(p2), { ...owned, seriesId: s2 }));
      const error = await checkedError(await update(holder, p2, p3, bytesOf(p3), { ...owned, seriesId: s1 }));
      assert.deepEqual([error.name, error.detailCode], ["InvalidSystemMetadata", "1300"]);
    });

    it("testSidReuseDiffChain: P1(S1) <-> P2(S2), P3(S3) <-> P4(S1) is InvalidSystemMetadata 1300", async () => {
      const [p1, p2, p3, p4, s1, s2, s3] = ["P1", "P2", "P3", "P4", "S1", "S2", "S3"].map((t) =>
        uniquePid(t),
      );
      assert.ok(p1 && p2 && p3 && p4 && s1 && s2 && s3);
      await ok(await create(holder, p1, bytesOf(p1), { ...owned, seriesId: s1 }));
      await ok(await update(holder, p1, p2, bytesOf(p2), { ...owned, seriesId: s2 }));
      await ok(await create(holder, p3, bytesOf(p3), { ...owned, seriesId: s3 }));
      const error = await checkedError(await update(holder, p3, p4, bytesOf(p4), { ...owned, seriesId: s1 }));
      assert.deepEqual([error.name, error.detailCode], ["InvalidSystemMetadata", "1300"]);
    });
  });
}
