/**
 * MetacatUI's logged-in calls in a real browser (headless Chromium), from a page of an origin the node does not
 * list (as search.dataone.org is to every Member Node): jQuery's ajax with `withCredentials` and
 * `Authorization: Bearer` (UserModel.createAjaxSettings), a create as DataONEObject.save sends it (pid, sysmeta,
 * object) and a read of the private object back. Chromium refuses both unless the preflight and the answers echo
 * the origin with Allow-Credentials.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import type { Browser } from "playwright-core";
import { enc } from "../../helpers/clients/client.ts";
import { sysmetaXml, uniquePid } from "../../helpers/data/sysmeta.ts";
import { ADMIN, startTestNode, type TestNode } from "../../helpers/nodes/node.ts";
import { launchBrowser } from "../../helpers/peers/browser.ts";
import { type LocalServer, listenLocal } from "../../helpers/peers/local-server.ts";

/** The page's script, as text (the test runner's transpiler would add helpers the page lacks). */
const METACATUI_CALLS = `async ({ base, token, pid, sysmeta, text }) => {
  const xhr = (method, url, body) =>
    new Promise((resolve) => {
      const request = new XMLHttpRequest();
      request.open(method, url);
      request.withCredentials = true;
      request.setRequestHeader("Authorization", "Bearer " + token);
      request.onload = () => resolve({ status: request.status, body: request.responseText });
      request.onerror = () => resolve({ status: 0, body: "refused by the browser (CORS)" });
      request.send(body);
    });
  const form = new FormData();
  form.append("pid", pid);
  form.append("sysmeta", new Blob([sysmeta], { type: "text/xml" }), "sysmeta.xml");
  form.append("object", new Blob([text], { type: "text/csv" }), "temps.csv");
  const created = await xhr("POST", base + "/v2/object", form);
  const read = await xhr("GET", base + "/v2/object/" + encodeURIComponent(pid));
  return { created, read };
}`;

describe("MetacatUI's calls from an unlisted origin, in Chromium", () => {
  let node: TestNode;
  let page: LocalServer;
  let browser: Browser;
  before(async () => {
    node = await startTestNode("sqlite");
    page = await listenLocal((_request, response) => {
      response.writeHead(200, { "content-type": "text/html" }).end("<!doctype html><title>MetacatUI</title>");
    });
    browser = await launchBrowser();
  });
  after(async () => {
    await browser?.close();
    await page?.close();
    await node?.close();
  });

  it("creates an object and reads it back with the bearer token and withCredentials", async () => {
    const tab = await browser.newPage();
    await tab.goto(page.baseUrl);
    const pid = uniquePid("metacatui");
    const bytes = Buffer.from("site,temp\nA,4.1\n");
    const sysmeta = sysmetaXml(pid, bytes, { rightsHolder: ADMIN, accessPolicy: [] });
    const args = { base: node.baseUrl, token: await node.token(ADMIN), pid, sysmeta, text: bytes.toString() };
    const answers = (await tab.evaluate(`(${METACATUI_CALLS})(${JSON.stringify(args)})`)) as {
      created: { status: number; body: string };
      read: { status: number; body: string };
    };
    assert.equal(answers.created.status, 200, answers.created.body);
    assert.deepEqual(answers.read, { status: 200, body: bytes.toString() });
    // Anonymous, the object stays private: the page read it with the token alone.
    assert.equal((await fetch(`${node.baseUrl}/v2/object/${enc(pid)}`)).status, 401);
  });
});
