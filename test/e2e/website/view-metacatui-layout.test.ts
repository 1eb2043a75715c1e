/**
 * The metacatui fragment laid out in headless Chromium as MetacatUI shows it: inside MetadataView's
 * `#metadata-container`, with MetacatUI's own Bootstrap 2 and metacatui-common CSS (from the MetacatUI kit beside
 * the checkout, ../shared/metacatui, or D1NODE_METACATUI; skipped without it). The fragment's citation is hidden
 * (MetacatUI shows its own header), "General" starts at the form's left edge, and each entity block is labelled
 * with its kind and shows its name.
 */
import assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { fileURLToPath } from "node:url";
import type { Browser } from "playwright-core";
import { type Caller, call, create, enc } from "../../helpers/clients/client.ts";
import { uniquePid } from "../../helpers/data/sysmeta.ts";
import { ADMIN, startTestNode, type TestNode } from "../../helpers/nodes/node.ts";
import { launchBrowser } from "../../helpers/peers/browser.ts";

const METACATUI =
  process.env.D1NODE_METACATUI ?? fileURLToPath(new URL("../../../../shared/metacatui/", import.meta.url));
const CSS = ["bootstrap.css", "metacatui-common.css"].map((name) => path.join(METACATUI, "src", "css", name));
const SKIP = CSS.every((file) => existsSync(file)) ? false : `MetacatUI's CSS is absent (${CSS[1]})`;
const fixture = (name: string) =>
  readFileSync(new URL(`../../fixtures/views/${name}`, import.meta.url), "utf8");

describe("the metacatui fragment in MetacatUI's CSS", { skip: SKIP }, () => {
  let node: TestNode;
  let admin: Caller;
  let browser: Browser;
  before(async () => {
    node = await startTestNode("sqlite");
    admin = { baseUrl: node.baseUrl, token: await node.token(ADMIN) };
    browser = await launchBrowser();
  });
  after(async () => {
    await browser?.close();
    await node?.close();
  });

  it("hides the fragment's citation, starts General at the left edge and labels the entities", async () => {
    const pid = uniquePid("layout");
    const eml = fixture("eml-lake.xml").replace("DATA_PID", "entity-1");
    const created = await create(admin, pid, Buffer.from(eml), {
      formatId: "eml://ecoinformatics.org/eml-2.1.1",
    });
    assert.equal(created.status, 200, await created.text());
    const fragment = await (await call(admin, "GET", `/views/metacatui/${enc(pid)}`)).text();
    const page = await browser.newPage({ viewport: { width: 1200, height: 1600 } });
    const styles = CSS.map((file) => `<style>${readFileSync(file, "utf8")}</style>`).join("");
    // MetadataView's template: the citation header, then the container the fragment is put in.
    await page.setContent(
      `<!doctype html><html><head>${styles}</head><body><div id="Content" class="container"><article class="container">` +
        `<div id="citation-container" class="citation-container"></div><div id="metadata-container">${fragment}</div>` +
        "</article></div></body></html>",
    );
    assert.equal(await page.locator("#Metadata .citation").isVisible(), false);
    const general = await page.locator("h4", { hasText: "General" }).boundingBox();
    const form = await page.locator("#Metadata form").boundingBox();
    assert.ok(general && form);
    assert.ok(Math.abs(general.x - form.x) < 2, `General at x=${general.x}, the form at x=${form.x}`);
    const entity = page.locator(".entitydetails").first();
    // biome-ignore lint/performance/useDomNodeTextContent: the rendered text is what a person sees
    const text = await entity.innerText();
    assert.match(text, /^Data Table\s+Entity Name\s+temperatures\.csv/);
    assert.ok(!text.includes("entity-1Data"), text);
  });
});
