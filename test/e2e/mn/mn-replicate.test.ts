/**
 * MNReplication.replicate on a listening Member Node: for CNs only; checked against the node's willingness and
 * nodeReplicationPolicy (each refusal with its detail code), answered at once, the pull queued as a task. The
 * Node document advertises MNReplication, replicate="true" and the policy, valid against the schema.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { PULL_REPLICA } from "../../../src/tasks/kinds.ts";
import { type Caller, call, checkedError, create, form, okXml } from "../../helpers/clients/client.ts";
import { sysmetaXml, uniquePid } from "../../helpers/data/sysmeta.ts";
import { ADMIN, CN_SUBJECT, startTestNode, type TestNode, testDialects } from "../../helpers/nodes/node.ts";

const SOURCE = "urn:node:SOURCE";
const UNREACHABLE_CN = "http://127.0.0.1:9/cn";

for (const dialect of testDialects()) {
  describe(`MNReplication.replicate (${dialect})`, () => {
    let node: TestNode;
    let cn: Caller;
    before(async () => {
      node = await startTestNode(dialect, {
        cnBaseUrl: UNREACHABLE_CN,
        replicate: true,
        replicationMaxObjectSize: 1000,
        replicationSpaceAllocated: 1500,
        replicationAllowedNodes: [SOURCE],
        replicationAllowedFormats: ["text/csv", "text/plain"],
      });
      cn = { baseUrl: node.baseUrl, token: await node.token(CN_SUBJECT) };
    });
    after(() => node?.close());

    const request = (
      caller: Caller,
      parts: Record<string, string | { xml: string }>,
      version: "v1" | "v2" = "v2",
    ) => call({ ...caller, version }, "POST", "/replicate", { body: form(parts) });
    const sysmetaOf = (pid: string, bytes: Buffer, o: Parameters<typeof sysmetaXml>[2] = {}) => ({
      xml: sysmetaXml(pid, bytes, o),
    });

    it('advertises MNReplication, replicate="true" and its nodeReplicationPolicy', async () => {
      for (const version of ["v1", "v2"] as const) {
        const xml = await okXml(await call({ baseUrl: node.baseUrl, version }, "GET", "/node"));
        assert.match(xml, / replicate="true"/);
        assert.match(xml, /<service name="MNReplication" version="v1" available="true">/);
        assert.match(xml, /<service name="MNReplication" version="v2" available="true">/);
        assert.match(
          xml,
          /<nodeReplicationPolicy><maxObjectSize>1000<\/maxObjectSize><spaceAllocated>1500<\/spaceAllocated><allowedNode>urn:node:SOURCE<\/allowedNode><allowedObjectFormat>text\/csv<\/allowedObjectFormat>/,
        );
        assert.match(xml, /<restriction methodName="replicate"><subject>CN=urn:node:TESTCN/);
      }
    });

    it("accepts a CN's request at once and queues the pull (v1 and v2)", async () => {
      for (const version of ["v1", "v2"] as const) {
        const pid = uniquePid("accepted");
        const bytes = Buffer.from("a,b\n");
        const response = await request(
          cn,
          { sysmeta: sysmetaOf(pid, bytes, { version }), sourceNode: SOURCE },
          version,
        );
        assert.equal(response.status, 200, await response.clone().text());
        assert.equal(await response.text(), "true");
      }
      assert.ok(((await node.node.ctx.tasks.pending())[PULL_REPLICA] ?? 0) >= 1);
    });

    it("is for Coordinating Nodes only: NotAuthorized 2152", async () => {
      const pid = uniquePid("notcn");
      const user = { baseUrl: node.baseUrl, token: await node.token("CN=someone") };
      const refused = await checkedError(
        await request(user, { sysmeta: sysmetaOf(pid, Buffer.from("x")), sourceNode: SOURCE }),
      );
      assert.deepEqual([refused.status, refused.name, refused.detailCode], [401, "NotAuthorized", "2152"]);
      const anonymous = await checkedError(await request({ baseUrl: node.baseUrl }, { sourceNode: SOURCE }));
      assert.deepEqual([anonymous.name, anonymous.detailCode], ["NotAuthorized", "2152"]);
    });

    it("bad requests: InvalidRequest 2153", async () => {
      const pid = uniquePid("bad");
      const good = sysmetaOf(pid, Buffer.from("x"));
      const cases: Array<[string, Record<string, string | { xml: string }>, RegExp]> = [
        ["no sysmeta", { sourceNode: SOURCE }, /sysmeta/],
        ["no sourceNode", { sysmeta: good }, /sourceNode/],
        ["malformed sysmeta", { sysmeta: { xml: "<nope" }, sourceNode: SOURCE }, /sysmeta part is not valid/],
        ["a source the policy does not allow", { sysmeta: good, sourceNode: "urn:node:ELSEWHERE" }, /only/],
        ["this node as source", { sysmeta: good, sourceNode: "urn:node:TESTMN" }, /is this node/],
      ];
      for (const [what, parts, message] of cases) {
        const error = await checkedError(await request(cn, parts));
        assert.deepEqual([error.name, error.detailCode], ["InvalidRequest", "2153"], what);
        assert.match(error.body, message, what);
      }
    });

    it("formats the node does not take: UnsupportedType 2155", async () => {
      const pid = uniquePid("format");
      for (const formatId of ["text/xml", "no/such-format"]) {
        const error = await checkedError(
          await request(cn, { sysmeta: sysmetaOf(pid, Buffer.from("x"), { formatId }), sourceNode: SOURCE }),
        );
        assert.deepEqual([error.name, error.detailCode], ["UnsupportedType", "2155"], formatId);
      }
    });

    it("objects over maxObjectSize or spaceAllocated: InsufficientResources 2154", async () => {
      const big = await checkedError(
        await request(cn, {
          sysmeta: sysmetaOf(uniquePid("big"), Buffer.alloc(1001, 1)),
          sourceNode: SOURCE,
        }),
      );
      assert.deepEqual([big.status, big.name, big.detailCode], [413, "InsufficientResources", "2154"]);
      // 1000 bytes of replicas held; 600 more do not fit in 1500.
      const held = uniquePid("held");
      const sysmeta = {
        identifier: held,
        formatId: "text/csv",
        size: 1000,
        checksum: { algorithm: "SHA-1", value: "0".repeat(40) },
        rightsHolder: "CN=owner",
        accessPolicy: [],
        replicas: [],
        dateUploaded: new Date(),
        dateSysMetadataModified: new Date(),
        serialVersion: 1,
      };
      const digests = { size: 1000, md5: "", sha1: "", sha256: "" };
      await node.node.ctx.db.objects.insert({ sysmeta, contentKey: "none", digests, isReplica: true });
      const full = await checkedError(
        await request(cn, {
          sysmeta: sysmetaOf(uniquePid("full"), Buffer.alloc(600, 1)),
          sourceNode: SOURCE,
        }),
      );
      assert.deepEqual([full.name, full.detailCode], ["InsufficientResources", "2154"]);
      assert.match(full.body, /1000 of the 1500 bytes/);
      const fits = await request(cn, {
        sysmeta: sysmetaOf(uniquePid("fits"), Buffer.alloc(500, 1)),
        sourceNode: SOURCE,
      });
      assert.equal(fits.status, 200);
    });

    it("an object held here as an original is refused", async () => {
      const pid = uniquePid("original");
      const admin = { baseUrl: node.baseUrl, token: await node.token(ADMIN) };
      await okXml(await create(admin, pid, Buffer.from("mine\n")));
      const error = await checkedError(
        await request(cn, { sysmeta: sysmetaOf(pid, Buffer.from("mine\n")), sourceNode: SOURCE }),
      );
      assert.deepEqual([error.name, error.detailCode], ["InvalidRequest", "2153"]);
    });
  });
}

describe("MNReplication.replicate on a node that takes no replicas", () => {
  let node: TestNode;
  before(async () => {
    node = await startTestNode("sqlite");
  });
  after(() => node?.close());

  it('says replicate="false" and refuses with InvalidRequest 2153', async () => {
    const xml = await okXml(await call({ baseUrl: node.baseUrl }, "GET", "/node"));
    assert.match(xml, / replicate="false"/);
    assert.doesNotMatch(xml, /nodeReplicationPolicy/);
    const cn = { baseUrl: node.baseUrl, token: await node.token(CN_SUBJECT) };
    const pid = uniquePid("unwilling");
    const body = form({ sysmeta: { xml: sysmetaXml(pid, Buffer.from("x")) }, sourceNode: SOURCE });
    const error = await checkedError(await call(cn, "POST", "/replicate", { body }));
    assert.deepEqual([error.name, error.detailCode], ["InvalidRequest", "2153"]);
    assert.match(error.body, /takes no replicas/);
  });
});
