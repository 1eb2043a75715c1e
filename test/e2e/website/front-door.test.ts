/**
 * The node's base URL as a person and as an API client meet it. A browser (headless Chromium) at `/mn`, `/mn/`
 * and `/` sees the home page: the node's name, the public datasets counted and listed newest first, each linking
 * to its view page, a search box, links to the API and the status page; a private dataset is neither counted nor
 * listed, and a hostile title is text. A DataONE client (Accept any type, text/xml, or none) gets the
 * NotImplemented error document it always got.
 */
import assert from "node:assert/strict";
import { readFile } from "node:fs/promises";
import { after, before, describe, it } from "node:test";
import type { Browser } from "playwright-core";
import { type Caller, create, errorOf } from "../../helpers/clients/client.ts";
import { uniquePid } from "../../helpers/data/sysmeta.ts";
import { ADMIN, startTestNode, type TestNode } from "../../helpers/nodes/node.ts";
import { launchBrowser } from "../../helpers/peers/browser.ts";

const EML = "eml://ecoinformatics.org/eml-2.1.1";
const fixture = (name: string) => readFile(new URL(`../../fixtures/views/${name}`, import.meta.url));

describe("the front door", () => {
  let node: TestNode;
  let browser: Browser;
  let origin: string;
  const lake = uniquePid("lake");
  const hostile = uniquePid("hostile");
  const hidden = uniquePid("private");

  before(async () => {
    node = await startTestNode("sqlite", { nodeName: "Lake Ontiki Member Node", auditInterval: 0 });
    origin = new URL(node.baseUrl).origin;
    const admin: Caller = { baseUrl: node.baseUrl, token: await node.token(ADMIN) };
    assert.equal((await create(admin, lake, await fixture("eml-lake.xml"), { formatId: EML })).status, 200);
    assert.equal(
      (await create(admin, hostile, await fixture("eml-hostile.xml"), { formatId: EML })).status,
      200,
    );
    const secret = Buffer.from(
      (await fixture("eml-lake.xml")).toString().replace("Lake Ontiki", "Secret Lake"),
    );
    assert.equal(
      (await create(admin, hidden, secret, { formatId: EML, readers: ["CN=someone,DC=org"] })).status,
      200,
    );
    browser = await launchBrowser();
  });
  after(async () => {
    await browser?.close();
    await node?.close();
  });

  it("a browser gets the home page at /mn, /mn/ and /", { timeout: 60_000 }, async () => {
    const page = await browser.newPage();
    for (const path of ["/mn", "/mn/", "/"]) {
      const response = await page.goto(`${origin}${path}`);
      assert.equal(response?.status(), 200, path);
      assert.equal(await page.title(), "Lake Ontiki Member Node");
      assert.equal((await page.locator("#dataset-count").textContent())?.trim(), "2");
      const items = await page.locator("#recent li a").allTextContents();
      assert.equal(items.length, 2);
      assert.ok(items.includes("Water temperature of Lake Ontiki, 2019-2021"), items.join("|"));
      assert.ok(!items.some((t) => t.includes("Secret")));
      assert.ok(
        items.some((t) => t.includes("<script>")),
        "the hostile title shown as text",
      );
      assert.equal(await page.evaluate(() => (window as { __pwned?: string }).__pwned), undefined);
      assert.equal(await page.locator("script").count(), 0);
      assert.equal(await page.locator("input[type=search]").count(), 1);
      assert.equal(await page.locator('nav a[href="/mn/v2/node"]').count(), 1);
      assert.equal(await page.locator('nav a[href="/mn/status"]').count(), 1);
    }
    await page.locator("#recent li a", { hasText: "Lake Ontiki" }).click();
    await page.waitForURL(/\/mn\/v2\/views\/default\//);
    assert.match((await page.locator("h1").first().textContent()) ?? "", /Lake Ontiki/);
    await page.close();
  });

  it("an API client gets the NotImplemented error it always got", async () => {
    for (const path of ["/mn", "/mn/", "/"]) {
      for (const accept of [undefined, "*/*", "text/xml", "application/xml, text/xml"]) {
        const response = await fetch(`${origin}${path}`, accept ? { headers: { accept } } : {});
        assert.equal(response.status, 501, `${path} ${accept}`);
        assert.match(response.headers.get("content-type") ?? "", /xml/);
        const error = await errorOf(response);
        assert.equal(error.name, "NotImplemented");
        assert.ok(error.body.includes(`GET ${path} is not an operation this node serves.`), error.body);
      }
    }
  });
});
