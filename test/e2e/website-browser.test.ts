/**
 * MetacatUI (stock, from the shared references) as a Member Node's own website, in headless Chromium: the node
 * listens with the `website` setting and a real OpenID Connect provider, and a person loads the site, signs in
 * through MetacatUI's own sign-in page, sees their name in the header, makes a dataset in MetacatUI's
 * editor (created on the node in their name), then signs out. Console errors are
 * collected: only the expected 401 of `/portal/token` before signing in may appear.
 */
import assert from "node:assert/strict";
import { createServer } from "node:net";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { fileURLToPath } from "node:url";
import type { Browser, Page } from "playwright-core";
import { launchBrowser } from "../helpers/browser.ts";
import { startTestNode, type TestNode } from "../helpers/node.ts";
import { startOidcProvider, type TestProvider } from "../helpers/oidc-provider.ts";

const METACATUI = path.resolve(fileURLToPath(import.meta.url), "../../../../shared/metacatui/src");
const PERSON_SUBJECT = "http://orcid.org/0000-0002-1825-0097";
const TITLE = "Lake temperatures of Ontiki, 2019";
const PERSON = { sub: "kc-orcid-7", orcid: "https://orcid.org/0000-0002-1825-0097", name: "Josiah Carberry" };

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** Console errors and failed responses a person's browser would show, except the expected signed-out 401. */
function watchProblems(page: Page): string[] {
  const problems: string[] = [];
  page.on("pageerror", (error) => problems.push(`page error: ${error.message}`));
  page.on("response", (response) => {
    const signedOut = response.status() === 401 && response.url().endsWith("/portal/token");
    if (response.status() >= 400 && !signedOut) problems.push(`${response.status()} ${response.url()}`);
  });
  page.on("console", (message) => {
    const text = message.text();
    // The browser reports every 4xx response as a console error too; those are judged above.
    if (message.type() === "error" && !text.startsWith("Failed to load resource")) problems.push(text);
  });
  return problems;
}

describe("MetacatUI as a Member Node's website, in a browser", () => {
  let provider: TestProvider;
  let node: TestNode;
  let browser: Browser;
  let origin: string;

  before(async () => {
    const port = await freePort();
    provider = await startOidcProvider({
      redirectUris: [`http://127.0.0.1:${port}/mn/portal/callback`],
      accounts: [PERSON],
    });
    process.env.D1NODE_TEST_OIDC_SECRET = provider.clientSecret;
    node = await startTestNode("sqlite", {
      port,
      website: METACATUI,
      oidcProviders: [
        {
          name: "dataone",
          issuer: provider.issuer,
          clientId: provider.clientId,
          clientSecretEnv: "D1NODE_TEST_OIDC_SECRET",
          subjectClaims: ["orcid", "sub"],
        },
      ],
    });
    origin = new URL(node.baseUrl).origin;
    browser = await launchBrowser();
  });
  after(async () => {
    await browser?.close();
    await node?.close();
    await provider?.close();
  });

  it("loads with no errors, signs in with the provider, shows the name, saves a dataset, signs out", async () => {
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    const problems = watchProblems(page);
    await page.goto(`${origin}/data`);
    await page.getByText("No results found.").waitFor();
    assert.equal(await page.title(), "d1node Member Node");

    await page.getByRole("link", { name: "Sign In" }).click();
    await page.locator("a.login:visible").click();
    await page.locator("a.orcid-btn:visible").first().click();
    await page.locator("input[name=login]").fill(PERSON.sub);
    await page.locator("input[name=password]").fill("any");
    await page.locator("button[type=submit]").click();
    // The provider asks for consent once; then it sends the browser back through the node to MetacatUI.
    const consent = page.locator("button[type=submit]");
    const back = page.waitForURL((url) => url.origin === origin && !url.pathname.includes("/portal/"));
    if (!new URL(page.url()).origin.startsWith(origin)) await consent.click();
    await back;

    const name = page.locator("#Navbar .user-name");
    await name.waitFor();
    // The theme shows it in capitals (CSS); the text is the name as given.
    assert.equal((await name.textContent())?.trim(), PERSON.name);

    // A new dataset in MetacatUI's editor: the EML and its resource map are created on the node in their name.
    await page.goto(`${origin}/submit`);
    await page.locator(".title-container textarea, .title-container input").first().fill(TITLE);
    await page.locator(".overview .abstract textarea").first().fill("Water temperature every hour.");
    await page.locator(".overview .abstract textarea").first().blur();
    await page.locator("#save-editor").click();
    await page.getByText("Your changes have been submitted.").waitFor();
    const pid = decodeURIComponent(new URL(page.url()).pathname.replace(/^\/submit\//, ""));
    const token = await node.token(PERSON_SUBJECT);
    const sysmeta = await fetch(`${node.baseUrl}/v2/meta/${encodeURIComponent(pid)}`, {
      headers: { authorization: `Bearer ${token}` },
    });
    assert.equal(sysmeta.status, 200, `the dataset ${pid} is on the node`);
    assert.match(await sysmeta.text(), new RegExp(`<rightsHolder>${PERSON_SUBJECT}</rightsHolder>`));

    // The dataset is found in the site's search (the node's query endpoint), then the person signs out.
    await page.goto(`${origin}/data`);
    await page.getByText(TITLE).first().waitFor();
    // The header menu's "Sign out" link (/signout, MetacatUI's route to the node's /portal/logout).
    assert.equal(await page.locator("#Navbar a[href='/signout']").count(), 1);
    await page.goto(`${origin}/signout`);
    await page.getByRole("link", { name: "Sign In" }).waitFor();
    assert.equal((await page.request.get(`${node.baseUrl}/portal/token`)).status(), 401, "signed out");
    assert.deepEqual(problems, []);
  });
});
