/**
 * A NUL byte (%00) in an identifier or a text parameter: no stored identifier can hold one (XML cannot carry
 * U+0000) and PostgreSQL refuses it in text, so an identifier is NotFound and a filter parameter
 * InvalidRequest, on both dialects and both roles; never ServiceFailure.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { type Caller, call, checkedError, form } from "../../helpers/clients/client.ts";
import { ADMIN, CN_SUBJECT, startTestNode, type TestNode, testDialects } from "../../helpers/nodes/node.ts";

const NUL_ID = "abc%00def";

const mnCalls: [string, string, string, string][] = [
  ["getSystemMetadata", "GET", `/v2/meta/${NUL_ID}`, "NotFound"],
  ["describe", "HEAD", `/v2/object/${NUL_ID}`, "NotFound"],
  ["getChecksum", "GET", `/v2/checksum/${NUL_ID}`, "NotFound"],
  ["isAuthorized", "GET", `/v2/isAuthorized/${NUL_ID}?action=read`, "NotFound"],
  ["listObjects identifier", "GET", `/v2/object?identifier=${NUL_ID}`, "InvalidRequest"],
  ["listObjects formatId", "GET", `/v2/object?formatId=text%00csv`, "InvalidRequest"],
  ["archive", "PUT", `/v2/archive/${NUL_ID}`, "NotFound"],
  ["delete", "DELETE", `/v2/object/${NUL_ID}`, "NotFound"],
  ["getLogRecords idFilter", "GET", `/v2/log?idFilter=${NUL_ID}`, "InvalidRequest"],
  ["view", "GET", `/v2/views/default/${NUL_ID}`, "NotFound"],
  ["getPackage", "GET", `/v2/packages/application%2Fbagit-097/${NUL_ID}`, "NotFound"],
  ["query", "GET", `/v2/query/solr/?q=id:${NUL_ID}`, "InvalidRequest"],
  ["v1 get", "GET", `/v1/object/${NUL_ID}`, "NotFound"],
  ["getReplica", "GET", `/v2/replica/${NUL_ID}`, "NotFound"],
];

const cnCalls: [string, string, string, string][] = [
  ["getSystemMetadata", "GET", `/v2/meta/${NUL_ID}`, "NotFound"],
  ["resolve", "GET", `/v2/resolve/${NUL_ID}`, "NotFound"],
  ["getChecksum", "GET", `/v2/checksum/${NUL_ID}`, "NotFound"],
  ["isAuthorized", "GET", `/v2/isAuthorized/${NUL_ID}?action=read`, "NotFound"],
  ["get", "GET", `/v2/object/${NUL_ID}`, "NotFound"],
  ["listObjects identifier", "GET", `/v2/object?identifier=${NUL_ID}`, "InvalidRequest"],
  ["getLogRecords idFilter", "GET", `/v2/log?idFilter=${NUL_ID}`, "InvalidRequest"],
  ["hasReservation", "GET", `/v2/reserve/${NUL_ID}?subject=${encodeURIComponent(ADMIN)}`, "NotFound"],
  ["getSubjectInfo", "GET", `/v2/accounts/CN%3Dx%00y`, "NotFound"],
  ["getNodeCapabilities", "GET", `/v2/node/urn%3Anode%3AX%00`, "NotFound"],
  ["getFormat", "GET", `/v2/formats/text%00csv`, "NotFound"],
  ["query", "GET", `/v2/query/solr/?q=id:${NUL_ID}`, "InvalidRequest"],
  ["search", "GET", `/v2/search/solr?q=id:${NUL_ID}`, "InvalidRequest"],
  ["search (query in the path)", "GET", `/v2/search/solr/q=id:${NUL_ID}`, "InvalidRequest"],
  ["listObjects v1", "GET", `/v1/object?identifier=${NUL_ID}`, "InvalidRequest"],
];

async function assertAnswer(c: Caller, method: string, path: string, expected: string): Promise<void> {
  const response = await fetch(`${c.baseUrl}${path}`, {
    method,
    headers: { authorization: `Bearer ${c.token}` },
  });
  if (method === "HEAD") {
    assert.equal(response.headers.get("dataone-exception-name"), expected, `${method} ${path}`);
    return;
  }
  const error = await checkedError(response);
  assert.equal(error.name, expected, `${method} ${path}: ${error.body}`);
  assert.ok(error.detailCode !== "" && !error.body.includes("ServiceFailure"), error.body);
}

for (const dialect of testDialects()) {
  for (const [role, calls] of [
    ["mn", mnCalls],
    ["cn", cnCalls],
  ] as const) {
    describe(`NUL byte in identifiers and parameters (${role}, ${dialect})`, () => {
      let node: TestNode;
      let admin: Caller;
      before(async () => {
        node = await startTestNode(
          dialect,
          role === "cn" ? { role: "cn", nodeId: "urn:node:TESTCN", cnSubjects: [CN_SUBJECT] } : {},
        );
        admin = { baseUrl: node.baseUrl, token: await node.token(ADMIN) };
      });
      after(() => node.close());

      for (const [label, method, path, expected] of calls) {
        it(`${label}: ${method} ${path} is ${expected}`, async () => {
          await assertAnswer(admin, method, path, expected);
        });
      }

      it("a NUL byte in a multipart identifier part is refused, never a failure", async () => {
        const response = await call(admin, "POST", "/object", {
          body: form({ pid: "abc\u0000def", object: Buffer.from("x"), sysmeta: { xml: "<x/>" } }),
        });
        const error = await checkedError(response);
        assert.notEqual(error.name, "ServiceFailure", error.body);
      });
    });
  }
}
