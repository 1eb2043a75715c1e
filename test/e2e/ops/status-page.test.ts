/**
 * The operators' status page as a person sees it: headless Chromium (Debian package `chromium`) loads it from a
 * real node that has served requests, and the test reads the numbers and plots on screen. Text from the node's
 * state cannot become markup. The screenshot goes to a temp folder, or to docs/images/ with
 * D1NODE_UPDATE_SCREENSHOTS=1.
 */
import assert from "node:assert/strict";
import { stat } from "node:fs/promises";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import type { Browser } from "playwright-core";
import { recordAuditResult } from "../../../src/context/outcomes.ts";
import { createSampler, type Sampler } from "../../../src/metrics/samples.ts";
import { type Caller, call, create, enc, errorOf } from "../../helpers/clients/client.ts";
import { uniquePid } from "../../helpers/data/sysmeta.ts";
import { ADMIN, startTestNode, type TestNode } from "../../helpers/nodes/node.ts";
import { launchBrowser, removeScreenshotFolder, screenshotFolder } from "../../helpers/peers/browser.ts";
import { TestClock } from "../../helpers/time/clock.ts";

describe("status page in a browser", () => {
  let node: TestNode;
  let admin: Caller;
  let browser: Browser;
  let shots: string;
  const sizes = [2_000, 30_000, 120_000];

  before(async () => {
    // The plots' samples are taken by hand, 10 s apart on a clock that starts ten minutes ago (the page shows
    // the last hour up to now), so that the requests below draw the plots without the test waiting.
    const clock = new TestClock(Date.now() - 600_000);
    let sampler: Sampler | undefined;
    const sample = async () => {
      clock.advance(10_000);
      await sampler?.sample();
    };
    node = await startTestNode(
      "sqlite",
      // No scheduled audit: the queue holds only the task queued below.
      { nodeName: "Lake Ontiki Member Node", auditInterval: 0 },
      {
        metricsSampling: (metrics) => {
          sampler = createSampler(metrics, 10_000, clock);
          return sampler;
        },
      },
    );
    admin = { baseUrl: node.baseUrl, token: await node.token(ADMIN) };
    const pids = sizes.map(() => uniquePid("status"));
    for (const [i, pid] of pids.entries()) {
      assert.equal((await create(admin, pid, Buffer.alloc(sizes[i] as number, 120))).status, 200);
      await sample();
    }
    for (let round = 0; round < 8; round++) {
      for (const pid of pids.slice(0, 1 + (round % 3))) {
        assert.equal((await call(admin, "GET", `/object/${enc(pid)}`)).status, 200);
      }
      await sample();
    }
    await node.node.ctx.tasks.enqueue(
      "harvest",
      "urn:node:LATER",
      {},
      { runAt: new Date(Date.now() + 3_600_000) },
    );
    recordAuditResult(node.node.ctx, { kind: "replica", outcome: "valid" });
    recordAuditResult(node.node.ctx, { kind: "replica", outcome: "valid" });
    recordAuditResult(node.node.ctx, { kind: "replica", outcome: "unreachable" });
    await sample();
    browser = await launchBrowser();
    shots = await screenshotFolder();
  });
  after(async () => {
    await browser?.close();
    await node?.close();
    await removeScreenshotFolder(shots);
  });

  it("shows what is stored, the requests by API method, the task queue, audits and three plots", async () => {
    const page = await browser.newPage({
      viewport: { width: 1280, height: 1000 },
      extraHTTPHeaders: { authorization: `Bearer ${admin.token}` },
    });
    const response = await page.goto(`${node.baseUrl}/status`);
    assert.equal(response?.status(), 200);
    assert.equal(await page.title(), "Status of Lake Ontiki Member Node");
    const text = async (selector: string) => (await page.locator(selector).textContent())?.trim();
    assert.equal(await text("#objects"), "3");
    const total = sizes.reduce((a, b) => a + b, 0);
    assert.equal(await text("#object-bytes"), `${(total / 1024).toFixed(0)} KiB`);
    assert.equal(await text("#content-bytes"), `${(total / 1024).toFixed(0)} KiB`);
    // The harvest queued for an hour from now is scheduled, not waiting: the queue is not behind.
    assert.equal(await text("#queue-depth"), "0");
    assert.equal(await text("#index-lag"), "0");
    assert.equal(await text("#open-uploads"), "0 (0 B received)");
    const requests = Number((await text("#requests"))?.replace(/,/g, ""));
    assert.equal(requests, 3 + 15);
    const createRow = page.locator("#methods tr", { hasText: "MNStorage.create" });
    assert.equal((await createRow.locator("td").nth(1).textContent())?.trim(), "3");
    const getRow = page.locator("#methods tr", { hasText: "MNRead.get" });
    assert.equal((await getRow.locator("td").nth(1).textContent())?.trim(), "15");
    const harvestRow = page.locator("#tasks tr", { hasText: "harvest" });
    assert.equal((await harvestRow.locator("td").nth(1).textContent())?.trim(), "0");
    assert.equal((await harvestRow.locator("td").nth(3).textContent())?.trim(), "1");
    const auditRow = page.locator("#audits tr", { hasText: "replica" });
    assert.equal((await auditRow.locator("td").nth(1).textContent())?.trim(), "2");
    assert.equal((await auditRow.locator("td").nth(3).textContent())?.trim(), "1");
    // Three plots, each with a line drawn from the samples.
    assert.deepEqual(await page.locator("figure.plot figcaption").allTextContents(), [
      "Requests per second",
      "Bytes per second",
      "Task queue depth",
    ]);
    const paths = await page
      .locator("figure.plot path")
      .evaluateAll((els) => els.map((e) => (e.getAttribute("d") ?? "").split(" ").length));
    assert.equal(paths.length, 4);
    for (const points of paths) assert.ok(points >= 2, `a line of ${points} points`);
    assert.equal(await page.locator("script").count(), 0);
    const file = path.join(shots, "status-page.png");
    await page.screenshot({ path: file, fullPage: true });
    assert.ok((await stat(file)).size > 10_000);
    await page.close();
  });

  it("shows text from the node's state as text", async () => {
    const hostile = `<img src=x onerror="document.title='owned'">`;
    recordAuditResult(node.node.ctx, { kind: hostile, outcome: "invalid" });
    const page = await browser.newPage({ extraHTTPHeaders: { authorization: `Bearer ${admin.token}` } });
    await page.goto(`${node.baseUrl}/status`);
    assert.equal(await page.locator("img").count(), 0);
    assert.equal(await page.title(), "Status of Lake Ontiki Member Node");
    const row = page.locator("#audits tr", { hasText: "onerror" });
    assert.equal((await row.locator("td").first().textContent())?.trim(), hostile);
    await page.close();
  });

  it("refuses callers who are not administrators (NotAuthorized)", async () => {
    const anonymous = await errorOf(await fetch(`${node.baseUrl}/status`));
    assert.equal(anonymous.status, 401);
    assert.equal(anonymous.name, "NotAuthorized");
  });
});
