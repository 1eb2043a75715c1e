/**
 * MNView as a person sees it: headless Chromium (Debian package `chromium`) loads the pages of a real node and
 * the test reads what is on screen. A hostile document must not run anything. The screenshot of the default
 * page goes to a temp folder, or to docs/images/ with D1NODE_UPDATE_SCREENSHOTS=1.
 */
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { stat } from "node:fs/promises";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import type { Browser } from "playwright-core";
import { type Caller, create, enc } from "../../helpers/clients/client.ts";
import { RESOURCE_MAP_FORMAT, resourceMapXml } from "../../helpers/data/resource-map.ts";
import { uniquePid } from "../../helpers/data/sysmeta.ts";
import { ADMIN, startTestNode, type TestNode } from "../../helpers/nodes/node.ts";
import { launchBrowser, removeScreenshotFolder, screenshotFolder } from "../../helpers/peers/browser.ts";

const fixture = (name: string) => readFileSync(new URL(`../../fixtures/views/${name}`, import.meta.url));
const EML = "eml://ecoinformatics.org/eml-2.1.1";

describe("MNView in a browser", () => {
  let node: TestNode;
  let admin: Caller;
  let browser: Browser;
  let shots: string;
  const metadata = uniquePid("eml");
  const data = uniquePid("csv");
  const map = uniquePid("map");
  const hostile = uniquePid("hostile");

  before(async () => {
    node = await startTestNode("sqlite");
    admin = { baseUrl: node.baseUrl, token: await node.token(ADMIN) };
    const put = async (pid: string, bytes: Buffer, options: Parameters<typeof create>[3]) =>
      assert.equal((await create(admin, pid, bytes, options)).status, 200);
    await put(metadata, Buffer.from(fixture("eml-lake.xml").toString().replace("DATA_PID", data)), {
      formatId: EML,
    });
    await put(data, Buffer.from("time,depth,temp\n2019-05-01T00:00,1,12.5\n"), {
      fileName: "temperatures.csv",
    });
    await put(map, Buffer.from(resourceMapXml(map, metadata, [data])), { formatId: RESOURCE_MAP_FORMAT });
    await put(hostile, fixture("eml-hostile.xml"), { formatId: EML });
    browser = await launchBrowser();
    shots = await screenshotFolder();
  });
  after(async () => {
    await browser?.close();
    await node?.close();
    await removeScreenshotFolder(shots);
  });

  it("shows the dataset page: title, creators, coverage, the download link and the system metadata", async () => {
    const page = await browser.newPage({ viewport: { width: 1100, height: 1400 } });
    const response = await page.goto(`${node.baseUrl}/v2/views/default/${enc(metadata)}`);
    assert.equal(response?.status(), 200);
    assert.equal(await page.title(), "Water temperature of Lake Ontiki, 2019-2021");
    // biome-ignore lint/performance/useDomNodeTextContent: the rendered text is what a person sees
    assert.equal(await page.locator("h1").innerText(), "Water temperature of Lake Ontiki, 2019-2021");
    // biome-ignore lint/performance/useDomNodeTextContent: the rendered text is what a person sees
    const body = await page.locator("body").innerText();
    for (const text of [
      "Ada Limnos",
      "Lake Ontiki Field Station",
      "2019-05-01 to 2021-10-31",
      "Thermistor chain",
      "System metadata",
    ]) {
      assert.ok(body.includes(text), `on screen: ${text}`);
    }
    const download = page.getByRole("link", { name: "Download temperatures.csv" });
    assert.ok(await download.isVisible());
    const csv = await page.request.get(
      new URL((await download.getAttribute("href")) ?? "", node.baseUrl).toString(),
    );
    assert.equal(await csv.text(), "time,depth,temp\n2019-05-01T00:00,1,12.5\n");
    const file = path.join(shots, "view-default.png");
    await page.screenshot({ path: file, fullPage: true });
    assert.ok((await stat(file)).size > 10_000);
    await page.close();
  });

  it("a hostile document runs nothing: no script, no handler, no dialog; its markup shows as text", async () => {
    const page = await browser.newPage();
    let dialogs = 0;
    page.on("dialog", async (dialog) => {
      dialogs++;
      await dialog.dismiss();
    });
    const response = await page.goto(`${node.baseUrl}/v2/views/default/${enc(hostile)}`);
    assert.equal(response?.status(), 200);
    for (const link of await page.locator("a").all()) await link.hover();
    await page.locator("h1").hover();
    await page.keyboard.press("Tab");
    assert.equal(await page.evaluate(() => (window as unknown as { __pwned?: unknown }).__pwned), undefined);
    assert.equal(dialogs, 0);
    // The one script element is the landing page's JSON-LD (data, not code, under the page's CSP).
    assert.equal(await page.locator('script:not([type="application/ld+json"])').count(), 0);
    assert.ok((await page.locator('script[type="application/ld+json"]').count()) <= 1);
    assert.equal(await page.locator("img").count(), 0);
    assert.match(
      // biome-ignore lint/performance/useDomNodeTextContent: the rendered text is what a person sees
      await page.locator("h1").innerText(),
      /^<script>window.__pwned = "title"<\/script>Hostile <b /,
    );
    const hrefs = await page
      .locator("a")
      .evaluateAll((links) => links.map((a) => a.getAttribute("href") ?? ""));
    assert.ok(
      hrefs.every((href) => !/^\s*(javascript|data):/i.test(href)),
      hrefs.join(" "),
    );
    await page.close();
  });
});
