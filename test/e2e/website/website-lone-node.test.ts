/**
 * A Member Node as its MetacatUI website's whole backend, on both databases: the website folder served at `/`
 * with a config/config.js made from the node's settings, and the CN-shaped reads MetacatUI makes from
 * `{d1CNBaseUrl}/cn/v2` (accounts, people lookup, node list, formats, resolve, diag/subject, reserve), checked
 * against the DataONE XSDs; a website file that is not there is 404 while the API keeps its DataONE answers.
 */
import assert from "node:assert/strict";
import { get } from "node:http";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { fileURLToPath } from "node:url";
import { checkedError, create, enc, form, okXml, updateSysmeta } from "../../helpers/clients/client.ts";
import { editSysmeta, sysmetaXml } from "../../helpers/data/sysmeta.ts";
import { startTestNode, type TestNode, testDialects } from "../../helpers/nodes/node.ts";
import { startOidcProvider, type TestProvider } from "../../helpers/peers/oidc-provider.ts";

// The MetacatUI kit beside the checkout (../shared/metacatui) or D1NODE_METACATUI; its src/ is the website folder.
const METACATUI = path.join(
  process.env.D1NODE_METACATUI ??
    path.resolve(fileURLToPath(import.meta.url), "../../../../../shared/metacatui"),
  "src",
);
const CARBERRY = "http://orcid.org/0000-0002-1825-0097";
const LOVELACE = "http://orcid.org/0000-0001-5109-3700";

/** A GET whose path is sent exactly as given. */
function rawGet(origin: string, requestPath: string): Promise<{ status: number; body: string }> {
  const { hostname, port } = new URL(origin);
  return new Promise((resolve, reject) => {
    get({ hostname, port, path: requestPath }, (response) => {
      let body = "";
      response.setEncoding("utf8").on("data", (chunk: string) => {
        body += chunk;
      });
      response.on("end", () => resolve({ status: response.statusCode ?? 0, body }));
    }).on("error", reject);
  });
}

for (const dialect of testDialects()) {
  describe(`a lone Member Node as MetacatUI's backend (${dialect})`, () => {
    let provider: TestProvider;
    let node: TestNode;
    let cn: string;

    before(async () => {
      provider = await startOidcProvider({
        redirectUris: ["http://127.0.0.1/mn/portal/callback"],
        accounts: [],
      });
      process.env.D1NODE_TEST_OIDC_SECRET = provider.clientSecret;
      node = await startTestNode(dialect, {
        website: METACATUI,
        oidcProviders: [
          {
            name: "dataone",
            issuer: provider.issuer,
            clientId: provider.clientId,
            clientSecretEnv: "D1NODE_TEST_OIDC_SECRET",
          },
        ],
      });
      cn = `${node.baseUrl}/cn/v2`;
      const people = node.node.ctx.db.browserSessions;
      const now = Date.now();
      await people.recordPerson(
        { subject: CARBERRY, fullName: "Josiah Carberry", email: "jc@example.org", provider: "dataone" },
        now,
      );
      await people.recordPerson({ subject: "CN=Ada Lovelace,DC=example,DC=org", provider: "dataone" }, now);
    });
    after(async () => {
      await node?.close();
      await provider?.close();
    });

    it("serves the website at / with MetacatUI's page paths, and config.js from the node's settings", async () => {
      const origin = new URL(node.baseUrl).origin;
      const home = await fetch(`${origin}/`, { headers: { accept: "text/html" } });
      assert.equal(home.status, 200);
      assert.match(await home.text(), /metacatui-app/);
      const view = await fetch(`${origin}/view/doi:10.5063/X`);
      assert.match(await view.text(), /metacatui-app/, "MetacatUI's own paths get index.html");
      const loader = await fetch(`${origin}/loader.js`);
      assert.equal(loader.status, 200);
      const config = await (await fetch(`${origin}/config/config.js`)).text();
      assert.match(config, new RegExp(`d1CNBaseUrl: "${node.baseUrl}"`));
      assert.match(config, /d1CNService: "\/cn\/v2"/);
      assert.match(config, /d1Service: "\/mn\/v2"/);
      assert.match(config, new RegExp(`baseUrl: "${origin}"`));
      assert.match(config, /context: "",/);
      assert.match(config, /groupsUrl: undefined,/);
      const traversal = await fetch(`${origin}/%2e%2e/%2e%2e/package.json`);
      assert.doesNotMatch(await traversal.text(), /"devDependencies"/);
      // A path into one of the folder's own folders that climbs out of it reaches no file outside.
      for (const climb of [
        "/js/%2e%2e/%2e%2e/package.json",
        "/js/..%2f..%2fpackage.json",
        "/js/%2e%2e%5c%2e%2e%5cpackage.json",
      ]) {
        const out = await fetch(`${origin}${climb}`);
        assert.doesNotMatch(await out.text(), /"devDependencies"/, climb);
      }
      // The same, sent as written (fetch folds %2e%2e segments before sending).
      const raw = await rawGet(origin, "/js/%2e%2e/%2e%2e/package.json");
      assert.notEqual(raw.status, 200);
      assert.doesNotMatch(raw.body, /"devDependencies"/);
      const script = await fetch(`${origin}/js/app.js`);
      assert.equal(script.status, 200, "a file of the folder's js/ is served");
      const api = await fetch(`${node.baseUrl}/no-such-call`);
      assert.notEqual(api.status, 200, "unknown API paths are not the website's");
    });

    it("a website file that is not there is 404; unknown API paths keep their DataONE answer", async () => {
      const origin = new URL(node.baseUrl).origin;
      for (const missing of ["/js/no-such-file.js", "/img/none.png", "/components/none/x.css", "/js/"]) {
        const response = await fetch(`${origin}${missing}`);
        assert.equal(response.status, 404, missing);
        assert.match(response.headers.get("content-type") ?? "", /^text\/plain/);
        assert.doesNotMatch(await response.text(), /NotImplemented|<\?xml/);
      }
      const head = await fetch(`${origin}/js/no-such-file.js`, { method: "HEAD" });
      assert.equal(head.status, 404);
      assert.equal((await fetch(`${origin}/loader.js`, { method: "HEAD" })).status, 200);
      const apiHead = await fetch(`${node.baseUrl}/no-such-call`, { method: "HEAD" });
      assert.equal(apiHead.status, 501);
      assert.equal(apiHead.headers.get("dataone-exception-name"), "NotImplemented");
      // MetacatUI's page paths are still its index.html; the API's unknown paths are still NotImplemented.
      assert.equal((await fetch(`${origin}/view/no-such-dataset`)).status, 200);
      for (const path of ["/no-such-call", "/v2/no-such-call", "/cn/v2/no-such-call"]) {
        const error = await checkedError(await fetch(`${node.baseUrl}${path}`));
        assert.equal(error.status, 501, path);
        assert.equal(error.name, "NotImplemented", path);
      }
      const notFound = await checkedError(await fetch(`${node.baseUrl}/v2/object/no-such-object`));
      assert.equal(notFound.name, "NotFound");
    });

    it("accounts/{subject}: the SubjectInfo of a person who signed in; NotFound for anyone else", async () => {
      const body = await okXml(await fetch(`${cn}/accounts/${enc(CARBERRY)}`));
      assert.match(body, /<givenName>Josiah<\/givenName>/);
      assert.match(body, /<familyName>Carberry<\/familyName>/);
      assert.match(body, /<email>jc@example.org<\/email>/);
      const unknown = await checkedError(
        await fetch(`${cn}/accounts/${enc("http://orcid.org/0000-0000-0000-0000")}`),
      );
      assert.equal(unknown.name, "NotFound");
    });

    it("accounts?query=: people by name, subject or e-mail, any case", async () => {
      const byName = await okXml(await fetch(`${cn}/accounts?query=carb`));
      assert.match(byName, new RegExp(CARBERRY));
      assert.doesNotMatch(byName, /Lovelace/);
      const byDn = await okXml(await fetch(`${cn}/accounts?query=${encodeURIComponent("ada love")}`));
      assert.match(byDn, /Lovelace/);
      const none = await okXml(await fetch(`${cn}/accounts?query=${encodeURIComponent("100%_")}`));
      assert.doesNotMatch(none, /<person>/);
      // MetacatUI's people lookup asks {accountsUrl}?query= with an accountsUrl ending in a slash.
      const lookup = await okXml(await fetch(`${cn}/accounts/?query=Carb`));
      assert.match(lookup, new RegExp(CARBERRY));
    });

    it("reserve: an identifier held for the person who reserved it, as MetacatUI and the API send it", async () => {
      const mine = await node.token(CARBERRY);
      const theirs = await node.token(LOVELACE);
      const as = (token: string) => ({ authorization: `Bearer ${token}` });
      // MetacatUI (CollectionModel.reserveSeriesId) posts the pid form-encoded.
      const sid = `urn:uuid:website-reserved-sid-${dialect}`;
      const formEncoded = await fetch(`${cn}/reserve`, {
        method: "POST",
        headers: { ...as(mine), "content-type": "application/x-www-form-urlencoded" },
        body: new URLSearchParams({ pid: sid }).toString(),
      });
      assert.match(await okXml(formEncoded), new RegExp(`identifier[^>]*>${sid}</`));
      const pid = `website-reserved-pid-${dialect}`;
      await okXml(await fetch(`${cn}/reserve`, { method: "POST", headers: as(mine), body: form({ pid }) }));
      const byPath = `website-reserved-path-${dialect}`;
      await okXml(await fetch(`${cn}/reserve/${enc(byPath)}`, { method: "POST", headers: as(mine) }));

      // Reserved once: a second reservation is IdentifierNotUnique (MetacatUI retries another on 409).
      const again = await checkedError(
        await fetch(`${cn}/reserve`, { method: "POST", headers: as(theirs), body: form({ pid }) }),
      );
      assert.equal(again.status, 409);
      assert.equal(again.name, "IdentifierNotUnique");
      const anonymous = await checkedError(
        await fetch(`${cn}/reserve`, { method: "POST", body: form({ pid: "website-anonymous" }) }),
      );
      assert.equal(anonymous.name, "NotAuthorized");
      const empty = await checkedError(
        await fetch(`${cn}/reserve`, { method: "POST", headers: as(mine), body: form({ other: "x" }) }),
      );
      assert.equal(empty.name, "InvalidRequest");

      // hasReservation: true for the holder; NotAuthorized for another's; NotFound for none.
      const has = await fetch(`${cn}/reserve/${enc(pid)}?subject=${enc(CARBERRY)}`, { headers: as(mine) });
      assert.equal(has.status, 200);
      const other = await fetch(`${cn}/reserve/${enc(pid)}?subject=${enc(LOVELACE)}`, {
        headers: as(theirs),
      });
      assert.equal((await checkedError(other)).name, "NotAuthorized");
      const none = await fetch(`${cn}/reserve/website-free?subject=${enc(CARBERRY)}`, { headers: as(mine) });
      assert.equal((await checkedError(none)).name, "NotFound");

      // Create with a reserved pid or seriesId: only its holder.
      const bytes = Buffer.from("t\n");
      const refused = await create({ baseUrl: node.baseUrl, token: theirs }, pid, bytes);
      assert.equal((await checkedError(refused)).name, "NotAuthorized");
      const sidRefused = await create(
        { baseUrl: node.baseUrl, token: theirs },
        `website-sid-${dialect}`,
        bytes,
        {
          seriesId: sid,
        },
      );
      assert.equal((await checkedError(sidRefused)).name, "NotAuthorized");
      await okXml(await create({ baseUrl: node.baseUrl, token: mine }, pid, bytes, { seriesId: sid }));
      // Once used, the identifier cannot be reserved again.
      const used = await checkedError(
        await fetch(`${cn}/reserve`, { method: "POST", headers: as(mine), body: form({ pid: sid }) }),
      );
      assert.equal(used.name, "IdentifierNotUnique");
    });

    it("updateSystemMetadata as MetacatUI puts it, to /meta/{pid}; a pid part that differs is refused", async () => {
      const token = await node.token(CARBERRY);
      const c = { baseUrl: node.baseUrl, token };
      const pid = `website-meta-${dialect}`;
      await okXml(await create(c, pid, Buffer.from("m\n"), { rightsHolder: CARBERRY }));
      const xml = await okXml(
        await fetch(`${node.baseUrl}/v2/meta/${enc(pid)}`, { headers: { authorization: `Bearer ${token}` } }),
      );
      const changed = editSysmeta(xml, { fileName: "renamed.csv" });
      const put = (path: string, partPid: string) =>
        fetch(`${node.baseUrl}/v2/meta${path}`, {
          method: "PUT",
          headers: { authorization: `Bearer ${token}` },
          body: form({ pid: partPid, sysmeta: { xml: changed } }),
        });
      assert.equal((await put(`/${enc(pid)}`, pid)).status, 200);
      const stored = await (
        await fetch(`${node.baseUrl}/v2/meta/${enc(pid)}`, { headers: { authorization: `Bearer ${token}` } })
      ).text();
      assert.match(stored, /<fileName>renamed.csv<\/fileName>/);
      const mismatch = await checkedError(await put(`/${enc("website-other")}`, pid));
      assert.equal(mismatch.name, "InvalidRequest");
      // The API's own form, PUT /meta with the pid part, is unchanged.
      const current = await (
        await fetch(`${node.baseUrl}/v2/meta/${enc(pid)}`, { headers: { authorization: `Bearer ${token}` } })
      ).text();
      assert.equal(
        (await updateSysmeta(c, pid, editSysmeta(current, { fileName: "again.csv" }))).status,
        200,
      );
    });

    it("node, formats and diag/subject", async () => {
      const nodes = await okXml(await fetch(`${cn}/node`));
      assert.match(nodes, /<ns\d?:?nodeList|nodeList/);
      assert.match(nodes, new RegExp(`<identifier>${node.node.ctx.config.nodeId}</identifier>`));
      const formats = await okXml(await fetch(`${cn}/formats`));
      assert.match(formats, /eml:\/\/ecoinformatics.org\/eml-2.1.1/);
      await okXml(await fetch(`${cn}/formats/${enc("text/csv")}`));
      const token = await node.token(CARBERRY);
      const me = await okXml(
        await fetch(`${cn}/diag/subject`, { headers: { authorization: `Bearer ${token}` } }),
      );
      assert.match(me, /<familyName>Carberry<\/familyName>/);
      const anonymous = await okXml(await fetch(`${cn}/diag/subject`));
      assert.match(anonymous, /<subject>public<\/subject>/);
    });

    it("resolve: 303 to this node's copy; NotFound for an unknown pid", async () => {
      const token = await node.token(CARBERRY);
      const pid = `website-resolve-${dialect}`;
      assert.equal(
        (await create({ baseUrl: node.baseUrl, token }, pid, Buffer.from("a,b\n1,2\n"))).status,
        200,
      );
      const response = await fetch(`${cn}/resolve/${enc(pid)}`, {
        redirect: "manual",
        headers: { authorization: `Bearer ${token}` },
      });
      assert.equal(response.status, 303);
      assert.equal(response.headers.get("location"), `${node.baseUrl}/v2/object/${pid}`);
      const missing = await checkedError(await fetch(`${cn}/resolve/no-such-pid`));
      assert.equal(missing.name, "NotFound");
    });
    it("create as MetacatUI posts it: to /object/ and to /object/{pid}; a pid part that differs is refused", async () => {
      const token = await node.token(CARBERRY);
      const c = { baseUrl: node.baseUrl, token };
      const bytes = Buffer.from("x\n");
      const post = (path: string, pid: string) =>
        fetch(`${node.baseUrl}/v2/object${path}`, {
          method: "POST",
          headers: { authorization: `Bearer ${token}` },
          body: form({ pid, object: bytes, sysmeta: { xml: sysmetaXml(pid, bytes, { version: "v2" }) } }),
        });
      await okXml(await post("/", `website-slash-${dialect}`));
      await okXml(await post(`/${enc(`website-path-${dialect}`)}`, `website-path-${dialect}`));
      const other = await checkedError(await post(`/${enc("website-other")}`, `website-mismatch-${dialect}`));
      assert.equal(other.name, "InvalidRequest");
      assert.equal(
        (
          await fetch(`${node.baseUrl}/v2/meta/website-path-${dialect}`, {
            headers: { authorization: `Bearer ${c.token}` },
          })
        ).status,
        200,
      );
    });
  });
}
