/**
 * Subject expansion from the Coordinating Node (CNIdentity.getSubjectInfo, GET {cnBaseUrl}/v2/accounts/{subject})
 * against a small fake CN: groups, equivalent identities and verifiedUser widen the session; answers are cached;
 * an unreachable CN leaves the session with its own subjects and the request still succeeds.
 */
import assert from "node:assert/strict";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { after, before, describe, it } from "node:test";
import { serializeSubjectInfo } from "../../../src/types/index.ts";
import { createBody, newPid } from "../../helpers/data/auth-objects.ts";
import { ADMIN, startTestNode, type TestNode } from "../../helpers/nodes/node.ts";

const USER = "CN=CN Account,O=d1node,DC=org";
const GROUP = "CN=cn-group,DC=dataone,DC=org";
const ALTERNATE = "http://orcid.org/0000-0002-1825-0097";

describe("groups and identities from the CN", () => {
  let cn: Server;
  let cnBaseUrl: string;
  let node: TestNode;
  let offline: TestNode;
  const asked: string[] = [];
  const pids: Record<string, string> = {};

  before(async () => {
    cn = createServer((request, response) => {
      const subject = decodeURIComponent((request.url ?? "").replace(/^\/cn\/v2\/accounts\//, ""));
      // Only account lookups count: the node's own notices after its creates (CNRead.synchronize) come too.
      if (request.url?.startsWith("/cn/v2/accounts/")) asked.push(subject);
      if (subject !== USER) return response.writeHead(404, { "content-type": "text/xml" }).end("<error/>");
      const person = {
        subject: USER,
        givenNames: ["CN"],
        familyName: "Account",
        emails: [],
        isMemberOf: [GROUP],
        equivalentIdentities: [ALTERNATE],
        verified: true,
      };
      const group = { subject: GROUP, groupName: "g", hasMembers: [USER], rightsHolders: [ADMIN] };
      response
        .writeHead(200, { "content-type": "text/xml" })
        .end(serializeSubjectInfo({ persons: [person], groups: [group] }));
    });
    await new Promise<void>((resolve) => cn.listen(0, "127.0.0.1", resolve));
    cnBaseUrl = `http://127.0.0.1:${(cn.address() as AddressInfo).port}/cn`;
    node = await startTestNode("sqlite", { cnBaseUrl });
    // A CN that never answers (a port nothing listens on).
    offline = await startTestNode("sqlite", { cnBaseUrl: "http://127.0.0.1:9/cn" });
    for (const target of [node, offline]) {
      const admin = await target.token(ADMIN);
      for (const [name, reader] of Object.entries({
        group: GROUP,
        verified: "verifiedUser",
        alternate: ALTERNATE,
        own: USER,
      })) {
        const pid = newPid(`cn-${name}`);
        pids[`${target === node ? "" : "offline-"}${name}`] = pid;
        const spec = {
          rightsHolder: ADMIN,
          accessPolicy: [{ subjects: [reader], permissions: ["read" as const] }],
        };
        const made = await fetch(`${target.baseUrl}/v2/object`, {
          method: "POST",
          headers: { authorization: `Bearer ${admin}` },
          body: createBody(pid, spec),
        });
        assert.equal(made.status, 200, await made.text());
      }
    }
  });
  after(async () => {
    await node.close();
    await offline.close();
    await new Promise<void>((resolve) => cn.close(() => resolve()));
  });

  const status = async (target: TestNode, pid: string | undefined, token: string) =>
    (
      await fetch(`${target.baseUrl}/v2/meta/${encodeURIComponent(pid ?? "")}`, {
        headers: { authorization: `Bearer ${token}` },
      })
    ).status;

  it("adds the CN's groups, equivalent identities and verifiedUser to the session, asking once", async () => {
    const token = await node.token(USER);
    asked.length = 0;
    for (const name of ["group", "verified", "alternate", "own"]) {
      assert.equal(await status(node, pids[name], token), 200, name);
    }
    assert.deepEqual(asked, [USER]);
    const stranger = await node.token("CN=Stranger,DC=org");
    assert.equal(await status(node, pids.group, stranger), 401);
    assert.deepEqual(asked, [USER, "CN=Stranger,DC=org"]);
  });

  it("keeps the session's own subjects when the CN cannot be reached", async () => {
    const token = await offline.token(USER);
    assert.equal(await status(offline, pids["offline-own"], token), 200);
    assert.equal(await status(offline, pids["offline-group"], token), 401);
  });
});
