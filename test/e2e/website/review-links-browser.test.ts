/**
 * A reviewer link in a real browser (headless Chromium): the reviewer opens the link, follows the dataset's link
 * to a page elsewhere and downloads a data file; the other site learns nothing of the token (no Referer, no
 * document.referrer), and the data file goes to the reviewer as a download.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import type { Browser } from "playwright-core";
import { create } from "../../helpers/clients/client.ts";
import { RESOURCE_MAP_FORMAT, resourceMapXml } from "../../helpers/data/resource-map.ts";
import { uniquePid } from "../../helpers/data/sysmeta.ts";
import { ADMIN, startTestNode, type TestNode } from "../../helpers/nodes/node.ts";
import { launchBrowser } from "../../helpers/peers/browser.ts";
import { type LocalServer, listenLocal } from "../../helpers/peers/local-server.ts";

const OWNER = "CN=Owner,O=Lab,C=US,DC=cilogon,DC=org";

describe("a reviewer link in Chromium", () => {
  let node: TestNode;
  let outside: LocalServer;
  let browser: Browser;
  const seen: { url: string; referer: string | undefined }[] = [];
  let url = "";
  const data = uniquePid("csv");

  before(async () => {
    node = await startTestNode("sqlite");
    outside = await listenLocal((request, response) => {
      seen.push({ url: request.url ?? "", referer: request.headers.referer });
      response
        .writeHead(200, { "content-type": "text/html" })
        .end(
          "<!doctype html><title>Elsewhere</title><p id=r></p><script>r.textContent = 'ref:' + document.referrer</script>",
        );
    });
    browser = await launchBrowser();
    const admin = { baseUrl: node.baseUrl, token: await node.token(ADMIN) };
    const metadata = uniquePid("eml");
    const map = uniquePid("map");
    const eml = `<eml:eml xmlns:eml="https://eml.ecoinformatics.org/eml-2.2.0" packageId="p" system="s"><dataset><title>Reviewed dataset</title>
<otherEntity><entityName>Station photographs</entityName><physical><objectName>p</objectName><distribution><online><url>${outside.baseUrl}/photos</url></online></distribution></physical><entityType>images</entityType></otherEntity></dataset></eml:eml>`;
    const put = async (pid: string, bytes: string, formatId?: string) => {
      const response = await create(admin, pid, Buffer.from(bytes), {
        readers: [],
        rightsHolder: OWNER,
        ...(formatId ? { formatId } : {}),
        ...(pid === data ? { fileName: "table.csv" } : {}),
      });
      assert.equal(response.status, 200, await response.text());
    };
    await put(metadata, eml, "https://eml.ecoinformatics.org/eml-2.2.0");
    await put(data, "a,b\n1,2\n");
    await put(map, resourceMapXml(map, metadata, [data]), RESOURCE_MAP_FORMAT);
    const made = await fetch(`${node.baseUrl.replace(/\/v2$/, "")}/review-links`, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: `Bearer ${await node.token(OWNER)}` },
      body: JSON.stringify({ pid: map }),
    });
    assert.equal(made.status, 201, await made.clone().text());
    url = ((await made.json()) as { url: string }).url;
  });
  after(async () => {
    await browser?.close();
    await outside?.close();
    await node?.close();
  });

  it("sends no Referer and no document.referrer to the pages it links to", async () => {
    const tab = await browser.newPage();
    const answer = await tab.goto(url);
    assert.equal(answer?.status(), 200);
    assert.equal(await tab.title(), "Reviewed dataset");
    await Promise.all([
      tab.waitForURL(`${outside.baseUrl}/photos`),
      tab.click(`a[href="${outside.baseUrl}/photos"]`),
    ]);
    assert.equal(await tab.textContent("#r"), "ref:");
    assert.deepEqual(
      seen.filter((s) => s.url === "/photos"),
      [{ url: "/photos", referer: undefined }],
    );
    assert.ok(
      seen.every((s) => !s.referer?.includes("/review/")),
      "no request elsewhere names the link",
    );
    await tab.close();
  });

  it("downloads the data files rather than showing them on the node's origin", async () => {
    const tab = await browser.newPage();
    await tab.goto(url);
    const [file] = await Promise.all([
      tab.waitForEvent("download"),
      tab.click(`a[href$="/object/${encodeURIComponent(data)}"] >> nth=0`),
    ]);
    assert.equal(file.suggestedFilename(), "table.csv");
    const [bag] = await Promise.all([
      tab.waitForEvent("download"),
      tab.click('a[href$="/package"] >> nth=0'),
    ]);
    assert.match(bag.suggestedFilename(), /\.zip$/);
    await tab.close();
  });
});
