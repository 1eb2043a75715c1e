/**
 * Browser sign-in with OpenID Connect against a real provider process (oidc-provider, shaped like DataONE's
 * Keycloak realm), the flow driven over HTTP with a cookie jar, on both databases: MetacatUI's portal calls
 * (oauth start, token, logout), the session cookie for an administrator's status page and metrics, and the
 * attacks: open redirects, fixed and replayed session ids, cross-site state changes, provider access tokens
 * forged, expired, for another audience or another issuer, and the client secret kept out of the log.
 */
import assert from "node:assert/strict";
import { createServer } from "node:net";
import { Writable } from "node:stream";
import { after, before, describe, it } from "node:test";
import { decodeJwt, type JWTPayload } from "jose";
import { hashOf, randomId } from "../../../src/auth/browser-sessions.ts";
import { loadOrCreateSigningKey } from "../../../src/auth/keys.ts";
import { mintToken } from "../../../src/auth/tokens.ts";
import { cookieJar, type Jar } from "../../helpers/clients/cookie-jar.ts";
import { ADMIN, startTestNode, type TestNode, testDialects } from "../../helpers/nodes/node.ts";
import { type NodeProcess, spawnNode } from "../../helpers/nodes/process-node.ts";
import { startOidcProvider, type TestProvider } from "../../helpers/peers/oidc-provider.ts";
import { eventually } from "../../helpers/time/eventually.ts";

const ORCID_USER = {
  sub: "kc-orcid-1",
  orcid: "https://orcid.org/0000-0002-1825-0097",
  name: "Josiah Carberry",
};
const ADMIN_USER = { sub: "kc-ldap-2", ldap_dn: ADMIN, name: "Test Admin", email: "admin@example.org" };
const LISTED = "https://search.example.org";

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** Sign in through the provider's login and consent pages; returns the URL the node sent the browser back to. */
async function signIn(jar: Jar, node: TestNode, login: string, target: string): Promise<string> {
  const origin = new URL(node.baseUrl).origin;
  const backHome = (next: URL) => next.origin === origin && !next.pathname.includes("/portal/");
  let step = await jar.follow(`${node.baseUrl}/portal/oauth?action=start&target=${target}`, {}, backHome);
  for (const form of [`prompt=login&login=${login}&password=any`, "prompt=consent"]) {
    if (step.response.status !== 200) break;
    await step.response.text();
    const post = {
      method: "POST",
      body: form,
      headers: { "content-type": "application/x-www-form-urlencoded" },
    };
    step = await jar.follow(step.url, post, backHome);
  }
  assert.equal(step.response.status, 302, `signed in: ${await step.response.text()}`);
  return step.response.headers.get("location") ?? "";
}

const sessionValue = (jar: Jar) => jar.cookies.get("d1node_session")?.value;

for (const dialect of testDialects()) {
  describe(`sign-in with OpenID Connect (${dialect})`, () => {
    let provider: TestProvider;
    let node: TestNode;
    let second: NodeProcess | undefined;
    const logLines: string[] = [];

    before(async () => {
      const port = await freePort();
      provider = await startOidcProvider({
        redirectUris: [`http://127.0.0.1:${port}/mn/portal/callback`],
        accounts: [ORCID_USER, ADMIN_USER],
      });
      process.env.D1NODE_TEST_OIDC_SECRET = provider.clientSecret;
      const log = new Writable({
        write(chunk, _encoding, done) {
          logLines.push(String(chunk));
          done();
        },
      });
      node = await startTestNode(
        dialect,
        {
          port,
          corsOrigins: [LISTED],
          statusPage: "admin",
          metrics: "admin",
          oidcProviders: [
            {
              name: "dataone",
              issuer: provider.issuer,
              clientId: provider.clientId,
              clientSecretEnv: "D1NODE_TEST_OIDC_SECRET",
              subjectClaims: ["orcid", "ldap_dn", "sub"],
              audiences: [provider.clientId],
            },
          ],
        },
        { logLevel: "debug", logDestination: log },
      );
    });
    after(async () => {
      await second?.kill();
      await node?.close();
      await provider?.close();
    });

    it("signs in an ORCID user whose e-mail is private; /portal/token gives a DataONE token", async () => {
      const jar = cookieJar();
      const origin = new URL(node.baseUrl).origin;
      const target = `${origin}/view/doi:10.5063/X?tab=files&page=2`;
      assert.equal(await signIn(jar, node, ORCID_USER.sub, target), target);
      assert.ok(sessionValue(jar), "the session cookie is set");
      const response = await jar.fetch(`${node.baseUrl}/portal/token`);
      assert.equal(response.status, 200);
      const token = await response.text();
      const claims = decodeJwt(token);
      assert.equal(claims.userId, "http://orcid.org/0000-0002-1825-0097");
      assert.equal(claims.fullName, "Josiah Carberry");
      assert.ok(typeof claims.exp === "number" && claims.exp > Date.now() / 1000);
      const person = await node.node.ctx.db.browserSessions.findPerson(
        "http://orcid.org/0000-0002-1825-0097",
      );
      assert.equal(person?.fullName, "Josiah Carberry");
      assert.equal(person?.email, undefined);
      // Not an administrator: the status page stays closed, by cookie and by the token.
      assert.equal((await jar.fetch(`${node.baseUrl}/status`)).status, 401);
      const set = jar.fetch(`${node.baseUrl}/status`, { headers: { authorization: `Bearer ${token}` } });
      assert.equal((await set).status, 401);
    });

    it("an administrator signed in sees the status page and the metrics; the portal token works as bearer", async () => {
      const jar = cookieJar();
      await signIn(jar, node, ADMIN_USER.sub, "/");
      assert.equal((await jar.fetch(`${node.baseUrl}/status`)).status, 200);
      assert.equal((await jar.fetch(`${node.baseUrl}/metrics`)).status, 200);
      assert.equal((await fetch(`${node.baseUrl}/status`)).status, 401, "no cookie: closed");
      const token = await (await jar.fetch(`${node.baseUrl}/portal/token`)).text();
      const bearer = await fetch(`${node.baseUrl}/status`, { headers: { authorization: `Bearer ${token}` } });
      assert.equal(bearer.status, 200);
      const person = await node.node.ctx.db.browserSessions.findPerson(ADMIN);
      assert.equal(person?.email, "admin@example.org");
    });

    it("logout revokes the session: the old cookie value, replayed, counts for nothing", async () => {
      const jar = cookieJar();
      await signIn(jar, node, ADMIN_USER.sub, "/");
      const old = sessionValue(jar) as string;
      const token = await (await jar.fetch(`${node.baseUrl}/portal/token`)).text();
      const bearer = { headers: { authorization: `Bearer ${token}` } };
      assert.equal(
        (await fetch(`${node.baseUrl}/status`, bearer)).status,
        200,
        "the token works while signed in",
      );
      const out = await jar.fetch(`${node.baseUrl}/portal/logout?target=/`);
      assert.equal(out.status, 302);
      assert.equal(new URL(out.headers.get("location") ?? "").origin, new URL(node.baseUrl).origin);
      assert.equal(sessionValue(jar), undefined, "the cookie is cleared");
      const replay = { headers: { cookie: `d1node_session=${old}` } };
      assert.equal((await fetch(`${node.baseUrl}/portal/token`, replay)).status, 401);
      assert.equal((await fetch(`${node.baseUrl}/status`, replay)).status, 401);
      // The token handed out during the sign-in ends with it (a copy a page kept is refused, not ignored).
      const after = await fetch(`${node.baseUrl}/v2/meta/none`, bearer);
      assert.equal(after.status, 401);
      assert.match(await after.text(), /name="InvalidToken"[\s\S]*sign-in that has ended/);
    });

    it("a token naming another node's sign-in is that node's to judge: it works here until it expires", async () => {
      const { privateKey } = loadOrCreateSigningKey(node.dataDir);
      const elsewhere = await mintToken(privateKey, {
        subject: ADMIN,
        browserSession: { node: "urn:node:ELSEWHERE", key: "A".repeat(43) },
      });
      const status = await fetch(`${node.baseUrl}/status`, {
        headers: { authorization: `Bearer ${elsewhere}` },
      });
      assert.equal(status.status, 200);
      // One naming this node's sign-in with a key no session has is refused.
      const unknownSignIn = await mintToken(privateKey, {
        subject: ADMIN,
        browserSession: { node: node.node.ctx.config.nodeId, key: "A".repeat(43) },
      });
      assert.equal(
        (await fetch(`${node.baseUrl}/status`, { headers: { authorization: `Bearer ${unknownSignIn}` } }))
          .status,
        401,
      );
    });

    it("an expired session counts for nothing", async () => {
      const id = randomId();
      const past = Date.now() - 1000;
      await node.node.ctx.db.browserSessions.create(hashOf(id), {
        subject: ADMIN,
        fullName: undefined,
        provider: "dataone",
        expiresAt: past,
      });
      const expired = { headers: { cookie: `d1node_session=${id}` } };
      assert.equal((await fetch(`${node.baseUrl}/portal/token`, expired)).status, 401);
      assert.equal((await fetch(`${node.baseUrl}/status`, expired)).status, 401);
    });

    it("a session id planted before sign-in is never honoured, and sign-in gives a new one", async () => {
      const planted = "A".repeat(43);
      const jar = cookieJar();
      jar.cookies.set("d1node_session", { value: planted, path: "/", host: new URL(node.baseUrl).host });
      assert.equal((await jar.fetch(`${node.baseUrl}/portal/token`)).status, 401);
      await signIn(jar, node, ADMIN_USER.sub, "/");
      assert.notEqual(sessionValue(jar), planted);
      const fixed = { headers: { cookie: `d1node_session=${planted}` } };
      assert.equal((await fetch(`${node.baseUrl}/status`, fixed)).status, 401);
      const garbage = { headers: { cookie: "d1node_session=../../etc; other=1" } };
      assert.equal(
        (await fetch(`${node.baseUrl}/v2/node`, garbage)).status,
        200,
        "a stale cookie reads as public",
      );
    });

    it("refuses open redirects at sign-in and sign-out", async () => {
      const port = new URL(node.baseUrl).port;
      const bad = [
        "https://evil.example/",
        "//evil.example/",
        "/\\evil.example/",
        "%2F%2Fevil.example",
        "https%3A%2F%2Fevil.example%2F",
        encodeURIComponent("https%3A%2F%2Fevil.example%2F"),
        `http://127.0.0.1:${port}@evil.example/`,
        "https:evil.example",
        "javascript:alert(1)",
        "evil.example",
        "/%0d%0aLocation:%20https://evil.example",
      ];
      for (const target of bad) {
        const start = await fetch(`${node.baseUrl}/portal/oauth?action=start&target=${target}`, {
          redirect: "manual",
        });
        assert.equal(start.status, 400, `sign-in target ${target}`);
        const out = await fetch(`${node.baseUrl}/portal/logout?target=${target}`, { redirect: "manual" });
        assert.equal(out.status, 200, `sign-out target ${target}`);
      }
      const listed = await fetch(`${node.baseUrl}/portal/oauth?action=start&target=${LISTED}/view/x`, {
        redirect: "manual",
      });
      assert.equal(listed.status, 302);
      assert.ok(listed.headers.get("location")?.startsWith(provider.issuer));
      const state = listed.headers.get("location")?.includes("code_challenge_method=S256");
      assert.ok(state, "PKCE with S256");
    });

    it("a cookie-only request that changes state counts only from the node's own pages (no CSRF)", async () => {
      const jar = cookieJar();
      await signIn(jar, node, ADMIN_USER.sub, "/");
      const create = (headers: Record<string, string>) =>
        jar.fetch(`${node.baseUrl}/v2/object`, {
          method: "POST",
          headers: { "content-type": "multipart/form-data; boundary=x", ...headers },
          body: "--x--\r\n",
        });
      const crossSite = await create({ origin: "https://evil.example", "sec-fetch-site": "cross-site" });
      assert.equal(crossSite.status, 401);
      assert.match(await crossSite.text(), /name="NotAuthorized"/);
      assert.equal((await create({})).status, 401, "no Origin, no Sec-Fetch-Site: the cookie does not count");
      const own = await create({ origin: new URL(node.baseUrl).origin });
      assert.notEqual(own.status, 401, "from the node's own origin the cookie counts");
      const put = await jar.fetch(`${node.baseUrl}/v2/object/x`, {
        method: "PUT",
        headers: { origin: "https://evil.example" },
      });
      assert.equal(put.status, 401);
      const token = await jar.fetch(`${node.baseUrl}/portal/token`, {
        headers: { origin: "https://evil.example" },
      });
      assert.equal(token.status, 401, "another origin's page cannot read the token");
    });

    it("accepts the provider's access tokens by its published keys, and refuses bad ones", async () => {
      const status = (token: string) =>
        fetch(`${node.baseUrl}/status`, { headers: { authorization: `Bearer ${token}` } });
      assert.equal(
        (await status(await provider.accessToken({ sub: "kc-ldap-2", ldap_dn: ADMIN }))).status,
        200,
      );
      const refused = {
        forged: await provider.accessToken({ sub: "kc-ldap-2", ldap_dn: ADMIN }, { forged: true }),
        expired: await provider.accessToken({ sub: "kc-ldap-2", ldap_dn: ADMIN, exp: 1_000_000 }),
        "wrong audience": await provider.accessToken({
          sub: "kc-ldap-2",
          ldap_dn: ADMIN,
          aud: "x",
          azp: "x",
        }),
        "wrong issuer": await provider.accessToken({
          sub: "kc-ldap-2",
          ldap_dn: ADMIN,
          iss: "http://127.0.0.1:9",
        }),
      };
      for (const [name, token] of Object.entries(refused)) {
        const response = await status(token);
        assert.equal(response.status, 401, name);
        assert.match(await response.text(), /name="InvalidToken"/, name);
      }
    });

    it("follows the provider's key rotation: a token signed with a newly published key is accepted", {
      skip: dialect !== "sqlite" && "the key set is the provider's, whatever the database",
      timeout: 90_000,
    }, async () => {
      const status = async (claims: JWTPayload) =>
        (
          await fetch(`${node.baseUrl}/status`, {
            headers: { authorization: `Bearer ${await provider.accessToken(claims)}` },
          })
        ).status;
      const claims = { sub: "kc-ldap-2", ldap_dn: ADMIN };
      assert.equal(await status(claims), 200, "the realm's first key, its set fetched and cached");
      await provider.rotateKey();
      // jose's remote key set fetches again for an unseen key id once its cool-down (30 s) since the last fetch
      // has passed; until then the new key is not yet known.
      await eventually(
        "a token signed with the rotated key accepted",
        async () => ((await status(claims)) === 200 ? true : undefined),
        60_000,
      );
      const fetches = provider.keySetFetches();
      for (let i = 0; i < 3; i++) assert.equal(await status(claims), 200);
      assert.equal(provider.keySetFetches(), fetches, "no fetch of the key set per request");
    });

    it("shares sessions with a second node process (its own OS process) on the same PostgreSQL database", {
      skip: dialect !== "postgres",
    }, async () => {
      second = await spawnNode(
        ["--data-dir", node.dataDir, "--database-url", `${node.node.ctx.config.databaseUrl}`],
        {
          D1NODE_OIDC_PROVIDERS: JSON.stringify(node.node.ctx.config.oidcProviders),
          // One node in two processes: the same identifier (a token names the node whose sign-in it belongs to).
          D1NODE_NODE_ID: node.node.ctx.config.nodeId,
        },
      );
      const jar = cookieJar();
      await signIn(jar, node, ADMIN_USER.sub, "/");
      const cookie = { headers: { cookie: `d1node_session=${sessionValue(jar)}` } };
      const token = await (await fetch(`${second.baseUrl}/portal/token`, cookie)).text();
      const bearer = { headers: { authorization: `Bearer ${token}` } };
      assert.equal((await fetch(`${node.baseUrl}/status`, bearer)).status, 200);
      assert.equal((await fetch(`${second.baseUrl}/portal/logout`, cookie)).status, 200);
      assert.equal((await fetch(`${node.baseUrl}/portal/token`, cookie)).status, 401);
      assert.equal((await fetch(`${node.baseUrl}/status`, bearer)).status, 401, "signed out on both");
      assert.ok(
        !second.output().includes(provider.clientSecret),
        "the secret is not in the process's output",
      );
    });

    it("answers HEAD on its GET calls as GET does, with no body and no effect", async () => {
      const { kysely } = node.node.ctx.db;
      const pending = async () =>
        Number(
          (
            await kysely
              .selectFrom("sign_in_requests")
              .select((e) => e.fn.countAll().as("n"))
              .executeTakeFirstOrThrow()
          ).n,
        );
      const before = await pending();
      const origin = new URL(node.baseUrl).origin;
      for (const path of [
        "oauth?action=start&target=/",
        "startRequest?target=/",
        `oauth?target=${origin}/view/x`,
      ]) {
        const head = await fetch(`${node.baseUrl}/portal/${path}`, { method: "HEAD", redirect: "manual" });
        assert.equal(head.status, 302, path);
        assert.equal(await head.text(), "");
        const location = new URL(head.headers.get("location") ?? "");
        assert.equal(location.origin, new URL(provider.issuer).origin, "leads to the provider");
        assert.equal(location.searchParams.get("state"), null, "no sign-in started");
        assert.equal(head.headers.get("set-cookie"), null, "no state cookie");
        assert.equal(head.headers.get("cache-control"), "no-store");
      }
      assert.equal(await pending(), before, "HEAD records no sign-in");
      const refused = await fetch(`${node.baseUrl}/portal/oauth?target=https://evil.example/`, {
        method: "HEAD",
      });
      assert.equal(refused.status, 400);
      const unknown = await fetch(`${node.baseUrl}/portal/oauth?target=/&provider=nobody`, {
        method: "HEAD",
      });
      assert.equal(unknown.status, 404);

      // A sign-in under way survives a HEAD of its callback; only the GET finishes it.
      const jar = cookieJar();
      const started = await jar.fetch(`${node.baseUrl}/portal/oauth?action=start&target=/`);
      assert.equal(started.status, 302);
      const callback = await jar.fetch(`${node.baseUrl}/portal/callback?state=x&code=y`, { method: "HEAD" });
      assert.deepEqual([callback.status, callback.headers.get("allow")], [405, "GET"]);
      assert.equal(callback.headers.get("set-cookie"), null, "the sign-in's state cookie is kept");
      assert.equal(await pending(), before + 1);

      const signedIn = cookieJar();
      await signIn(signedIn, node, ORCID_USER.sub, "/");
      const token = await signedIn.fetch(`${node.baseUrl}/portal/token`, { method: "HEAD" });
      assert.equal(token.status, 200);
      assert.equal(await token.text(), "");
      assert.match(token.headers.get("content-type") ?? "", /^text\/plain/);
      assert.equal(token.headers.get("cache-control"), "no-store");
      assert.equal((await fetch(`${node.baseUrl}/portal/token`, { method: "HEAD" })).status, 401);
      // HEAD of logout ends nothing: the session and its cookie stay.
      const session = sessionValue(signedIn);
      const out = await signedIn.fetch(`${node.baseUrl}/portal/logout?target=/`, { method: "HEAD" });
      assert.equal(out.status, 302);
      assert.equal(new URL(out.headers.get("location") ?? "").origin, origin);
      assert.equal(out.headers.get("set-cookie"), null);
      assert.equal(sessionValue(signedIn), session);
      assert.equal((await signedIn.fetch(`${node.baseUrl}/portal/token`)).status, 200, "still signed in");
      const plainOut = await signedIn.fetch(`${node.baseUrl}/portal/logout`, { method: "HEAD" });
      assert.deepEqual([plainOut.status, await plainOut.text()], [200, ""]);
      assert.equal((await signedIn.fetch(`${node.baseUrl}/portal/logout`)).status, 200);
      assert.equal((await signedIn.fetch(`${node.baseUrl}/portal/token`)).status, 401, "GET signs out");
    });

    it("never writes the client secret to the log", () => {
      assert.ok(logLines.length > 0, "the node logged at debug");
      assert.ok(!logLines.some((line) => line.includes(provider.clientSecret)));
    });
  });
}
