/**
 * Failed tus requests: the library's own refusals are kept; any other failure is a DataONE exception (valid
 * against dataoneErrors.xsd) that never repeats the error's message, which may name the node's files.
 */
import assert from "node:assert/strict";
import { IncomingMessage, ServerResponse } from "node:http";
import { Socket } from "node:net";
import { it } from "node:test";
import { answerFailure, StalledBody } from "../../../src/uploads/tus-failures.ts";
import { validateXml } from "../../helpers/validation/xmllint.ts";

function exchange(): { req: IncomingMessage; res: ServerResponse } {
  const req = new IncomingMessage(new Socket());
  return { req, res: new ServerResponse(req) };
}

const quiet = { warn: () => undefined, error: () => undefined };

it("keeps the library's refusals", () => {
  const { req, res } = exchange();
  const notFound = { status_code: 404, body: "The file for this url was not found\n" };
  assert.equal(answerFailure(req, res, notFound, "urn:node:X", quiet), undefined);
});

it("answers a file system error as ServiceFailure without its path, and logs it", async () => {
  const { req, res } = exchange();
  const error = Object.assign(
    new Error("ENOENT: no such file or directory, lstat '/srv/d1/keys/k.pem.json'"),
    {
      code: "ENOENT",
    },
  );
  const logged: unknown[] = [];
  const answer = answerFailure(req, res, error, "urn:node:X", {
    ...quiet,
    error: (details) => logged.push(details.err),
  });
  assert.equal(answer?.status_code, 500);
  assert.match(answer?.body ?? "", /name="ServiceFailure"/);
  assert.doesNotMatch(answer?.body ?? "", /srv|ENOENT|pem/);
  assert.equal(res.getHeader("content-type"), "text/xml; charset=utf-8");
  assert.deepEqual(logged, [error]);
  await validateXml(answer?.body ?? "");
});

it("answers a full disk as InsufficientResources (MNStorage.create: 1160)", async () => {
  const { req, res } = exchange();
  const error = Object.assign(new Error("ENOSPC: no space left on device, write"), { code: "ENOSPC" });
  const answer = answerFailure(req, res, error, "urn:node:X", quiet);
  assert.equal(answer?.status_code, 413);
  assert.match(answer?.body ?? "", /name="InsufficientResources" errorCode="413" detailCode="1160"/);
  await validateXml(answer?.body ?? "");
});

it("answers a body that stalled as InvalidRequest, saying what was kept", async () => {
  const { req, res } = exchange();
  const answer = answerFailure(req, res, new StalledBody(30_000), "urn:node:X", quiet);
  assert.equal(answer?.status_code, 400);
  assert.match(answer?.body ?? "", /name="InvalidRequest" errorCode="400" detailCode="1102"/);
  assert.match(answer?.body ?? "", /sent nothing for 30 s.*bytes that arrived before are kept/);
  await validateXml(answer?.body ?? "");
});
