/**
 * Reviewer links over a real listening node, on both databases: made only by the dataset's rights holder (or an
 * administrator); through the link, the landing page, the dataset's objects and its package, and nothing else
 * (no other version, no other private object, no member of another rights holder, no other package, no DataONE
 * call: the token is no bearer token); every read logged as the link; an anonymised link shows no name; a
 * revoked or expired link stops at once.
 */
import assert from "node:assert/strict";
import { writeFile } from "node:fs/promises";
import path from "node:path";
import { before, describe, it } from "node:test";
import { openNodeDatabase } from "../../../src/node/open-database.ts";
import {
  type Caller,
  call,
  checkedError,
  create,
  enc,
  update,
  updateSysmeta,
} from "../../helpers/clients/client.ts";
import { RESOURCE_MAP_FORMAT, resourceMapXml } from "../../helpers/data/resource-map.ts";
import { uniquePid } from "../../helpers/data/sysmeta.ts";
import { runCli } from "../../helpers/nodes/cli.ts";
import { ADMIN, CN_SUBJECT, testDialects, withTestNode } from "../../helpers/nodes/node.ts";
import { unzip, verifyManifests } from "../../helpers/validation/bag.ts";
import { validateXml } from "../../helpers/validation/xmllint.ts";

const OWNER = "CN=Ada Lovelace A1,O=Analytical Engines,C=UK,DC=cilogon,DC=org";
const OTHER = "CN=Someone Else A2,O=Elsewhere,C=US,DC=cilogon,DC=org";
const EML_FORMAT = "https://eml.ecoinformatics.org/eml-2.2.0";
const PARTY = (tag: string, extra = "") =>
  `<${tag} id="ada-${tag}"><individualName><givenName>Ada</givenName><surName>Lovelace</surName></individualName>` +
  "<organizationName>Analytical Engines Inc</organizationName><positionName>Countess of Lovelace</positionName>" +
  "<address><deliveryPoint>12 St James Square</deliveryPoint><city>London</city></address><phone>+44 20 7946 0000</phone>" +
  `<electronicMailAddress>ada@engines.example</electronicMailAddress><onlineUrl>https://engines.example/ada</onlineUrl><userId directory="https://orcid.org">https://orcid.org/0000-0002-1825-0097</userId>${extra}</${tag}>`;
const EML = Buffer.from(
  `<?xml version="1.0" encoding="UTF-8"?>
<!-- prepared by Ada Lovelace -->
<eml:eml xmlns:eml="https://eml.ecoinformatics.org/eml-2.2.0" packageId="p1" system="knb">
<dataset><title>Bernoulli numbers by engine</title>
${PARTY("creator")}
${PARTY("metadataProvider")}
${PARTY("associatedParty", "<role>Charles Babbage's collaborator</role>")}
<abstract><para>Computed numbers.</para></abstract>
${PARTY("contact")}
<project><title>Engine</title>${PARTY("personnel", "<role>principalInvestigator</role>")}</project>
<dataTable><entityName>lovelace-measurements.csv</entityName></dataTable>
</dataset>
<additionalMetadata><metadata><note>Ada Lovelace kept these</note></metadata></additionalMetadata>
</eml:eml>
`,
);
/** Every string that names the rights holder or the creators: none may come through an anonymised link. */
const NAMES = [
  "Ada",
  "Lovelace",
  "Babbage",
  "Analytical Engines",
  "Countess",
  "engines.example",
  "0000-0002-1825-0097",
  "St James",
  "7946",
  "A1",
];

for (const dialect of testDialects()) {
  describe(`reviewer links (${dialect})`, () => {
    const node = withTestNode(dialect);
    let admin: Caller;
    let owner: Caller;
    let other: Caller;
    let anon: Caller;
    const metadata = uniquePid("eml");
    const data = uniquePid("csv");
    const foreign = uniquePid("foreign");
    const map = uniquePid("map");
    const newerMetadata = uniquePid("eml-v2");
    const otherPrivate = uniquePid("private");
    const otherData = uniquePid("other-csv");
    const otherMap = uniquePid("other-map");
    const DATA = Buffer.from("n,value\n1,-0.5\n");

    const put = async (c: Caller, pid: string, bytes: Buffer, options: Parameters<typeof create>[3] = {}) => {
      const response = await create(c, pid, bytes, { readers: [], rightsHolder: OWNER, ...options });
      assert.equal(response.status, 200, await response.text());
    };
    const root = () => node.baseUrl.replace(/\/v2$/, "");
    const makeLink = (c: Caller, body: unknown) =>
      fetch(`${root()}/review-links`, {
        method: "POST",
        headers: {
          "content-type": "application/json",
          ...(c.token ? { authorization: `Bearer ${c.token}` } : {}),
        },
        body: JSON.stringify(body),
      });
    const newLink = async (body: Record<string, unknown>) => {
      const response = await makeLink(owner, { pid: map, ...body });
      assert.equal(response.status, 201, await response.clone().text());
      return (await response.json()) as { id: string; url: string; token: string; expires: string };
    };
    const read = (link: { url: string }, rest = "", init: RequestInit = {}) =>
      fetch(`${link.url}${rest}`, init);

    before(async () => {
      admin = { baseUrl: node.baseUrl, token: await node.token(ADMIN) };
      owner = { baseUrl: node.baseUrl, token: await node.token(OWNER) };
      other = { baseUrl: node.baseUrl, token: await node.token(OTHER) };
      anon = { baseUrl: node.baseUrl };
      await put(admin, metadata, EML, { formatId: EML_FORMAT, fileName: "lovelace-eml.xml" });
      await put(admin, data, DATA, { fileName: "lovelace-measurements.csv" });
      await put(admin, foreign, Buffer.from("secret of someone else\n"), { rightsHolder: OTHER });
      await put(admin, map, Buffer.from(resourceMapXml(map, metadata, [data, foreign])), {
        formatId: RESOURCE_MAP_FORMAT,
      });
      const updated = await update(admin, metadata, newerMetadata, Buffer.concat([EML, Buffer.from("\n")]), {
        formatId: EML_FORMAT,
        readers: [],
        rightsHolder: OWNER,
      });
      assert.equal(updated.status, 200, await updated.text());
      await put(admin, otherPrivate, Buffer.from("another private object\n"));
      await put(admin, otherData, Buffer.from("other package\n"));
      await put(admin, otherMap, Buffer.from(resourceMapXml(otherMap, otherPrivate, [otherData])), {
        formatId: RESOURCE_MAP_FORMAT,
      });
    });

    it("is made only by the rights holder or an administrator, for a package or its metadata", async () => {
      const cn: Caller = { baseUrl: node.baseUrl, token: await node.token(CN_SUBJECT) };
      for (const c of [anon, other, cn]) {
        const error = await checkedError(await makeLink(c, { pid: map }));
        assert.deepEqual([error.status, error.name], [401, "NotAuthorized"]);
      }
      const dataLink = await checkedError(await makeLink(owner, { pid: data }));
      assert.deepEqual([dataLink.status, dataLink.name], [400, "InvalidRequest"]);
      const tooLong = await checkedError(
        await makeLink(owner, { pid: map, expires: "2999-01-01T00:00:00Z" }),
      );
      assert.deepEqual([tooLong.status, tooLong.name], [400, "InvalidRequest"]);
      const past = await checkedError(await makeLink(owner, { pid: map, expires: "2001-01-01T00:00:00Z" }));
      assert.equal(past.status, 400);
      const unknown = await checkedError(await makeLink(owner, { pid: uniquePid("nothing") }));
      assert.equal(unknown.name, "NotFound");
      const byAdmin = await makeLink(admin, { pid: metadata });
      assert.equal(byAdmin.status, 201);
      const made = (await byAdmin.json()) as { package: string; rightsHolder: string; token: string };
      assert.equal(made.package, map, "a metadata pid opens the package aggregating it");
      assert.equal(made.rightsHolder, OWNER);
      const link = await newLink({ label: "Journal of Engines, reviewer 2" });
      assert.match(link.url, /\/review\/[A-Za-z0-9_-]{16}\.[A-Za-z0-9_-]{43}$/);
      assert.ok(link.url.endsWith(link.token));

      const listed = (await (
        await fetch(`${root()}/review-links?pid=${encodeURIComponent(map)}`, {
          headers: { authorization: `Bearer ${owner.token}` },
        })
      ).json()) as { links: Record<string, unknown>[] };
      const mine = listed.links.find((l) => l.id === link.id);
      assert.equal(mine?.label, "Journal of Engines, reviewer 2");
      assert.equal(mine?.active, true);
      assert.ok(
        !JSON.stringify(listed).includes(link.token.split(".")[1] as string),
        "the secret is shown once",
      );
      const theirs = (await (
        await fetch(`${root()}/review-links`, { headers: { authorization: `Bearer ${other.token}` } })
      ).json()) as { links: unknown[] };
      assert.deepEqual(theirs.links, []);
      const anonymousList = await checkedError(await fetch(`${root()}/review-links`));
      assert.equal(anonymousList.name, "NotAuthorized");
    });

    it("opens the landing page, the dataset's objects and its package, without signing in", async () => {
      const link = await newLink({});
      const page = await read(link);
      const html = await page.text();
      assert.equal(page.status, 200, html);
      assert.equal(page.headers.get("referrer-policy"), "no-referrer");
      assert.equal(page.headers.get("cache-control"), "no-store");
      assert.match(page.headers.get("x-robots-tag") ?? "", /noindex/);
      assert.match(page.headers.get("content-type") ?? "", /^text\/html/);
      assert.match(html, /Bernoulli numbers by engine/);
      assert.match(html, /<meta name="referrer" content="no-referrer">/);
      const path = new URL(link.url).pathname;
      assert.ok(
        html.includes(`${path}/object/${encodeURIComponent(data)}`),
        "data files link through the token",
      );
      assert.ok(html.includes(`${path}/package`));
      assert.ok(!html.includes(newerMetadata), "the page names no other version");
      assert.ok(!html.includes(foreign), "the page names no member of another rights holder");
      assert.ok(!html.includes(`/v2/object/`), "the page links nowhere outside the link");

      const eml = await read(link, `/object/${encodeURIComponent(metadata)}`);
      assert.equal(eml.status, 200);
      assert.deepEqual(Buffer.from(await eml.arrayBuffer()), EML);
      assert.equal(eml.headers.get("referrer-policy"), "no-referrer");
      const csv = await read(link, `/object/${encodeURIComponent(data)}`);
      assert.equal(csv.status, 200);
      assert.deepEqual(Buffer.from(await csv.arrayBuffer()), DATA);
      assert.match(
        csv.headers.get("content-disposition") ?? "",
        /^attachment; filename="lovelace-measurements\.csv"/,
      );
      assert.match(csv.headers.get("content-security-policy") ?? "", /sandbox/);

      const zip = await read(link, "/package");
      assert.equal(zip.status, 200);
      const files = await unzip(Buffer.from(await zip.arrayBuffer()));
      const { payload } = verifyManifests(files);
      assert.deepEqual(payload.sort(), ["data/lovelace-eml.xml", "data/lovelace-measurements.csv"]);
      for (const [name, bytes] of files) {
        if (name.startsWith("metadata/sysmeta/")) await validateXml(bytes.toString());
        assert.ok(!bytes.toString().includes("secret of someone else"), `${name} holds nothing of another`);
        assert.ok(!bytes.toString().includes("accessPolicy"), `${name} shows no access policy`);
      }
    });

    it("answers HEAD on the page, an object and the package as GET does, with no body and no read logged", async () => {
      const link = await newLink({});
      const same = ["content-type", "content-disposition", "content-security-policy", "referrer-policy"];
      for (const rest of ["", `/object/${encodeURIComponent(data)}`, "/package"]) {
        const head = await read(link, rest, { method: "HEAD" });
        assert.equal(head.status, 200, rest);
        assert.equal((await head.arrayBuffer()).byteLength, 0, `${rest}: no body`);
        assert.equal(head.headers.get("cache-control"), "no-store");
        assert.match(head.headers.get("x-robots-tag") ?? "", /noindex/);
        const get = await read(link, rest);
        const body = Buffer.from(await get.arrayBuffer());
        for (const name of same)
          assert.equal(head.headers.get(name), get.headers.get(name), `${rest}: ${name}`);
        if (rest !== "/package") assert.equal(head.headers.get("content-length"), String(body.length), rest);
      }
      const unknown = await read(link, `/object/${encodeURIComponent(otherPrivate)}`, { method: "HEAD" });
      assert.equal(unknown.status, 404);
      assert.equal(unknown.headers.get("dataone-exception-name"), "NotFound");
      const [id] = link.token.split(".") as [string];
      const wrong = await fetch(`${root()}/review/${id}.${"A".repeat(43)}`, { method: "HEAD" });
      assert.equal(wrong.status, 401);
      assert.equal(wrong.headers.get("dataone-exception-name"), "NotAuthorized");
      // Only the GETs above are reads: three of them, none from the HEADs.
      await node.node.ctx.db.events.flush();
      const log = await (await call(admin, "GET", `/log?count=1000&start=0`)).text();
      const byLink = [...log.matchAll(/<logEntry>([\s\S]*?)<\/logEntry>/g)]
        .map((m) => m[1] as string)
        .filter((e) => e.includes(`<subject>reviewLink:${link.id}</subject>`));
      const reads = (pid: string) =>
        byLink.filter((e) => e.includes(`<identifier>${pid}</identifier>`)).length;
      assert.equal(reads(data), 2, "the object GET and the package GET");
      assert.equal(reads(map), 1, "the package GET");
    });

    it("answers any other method on its paths with 405 (Allow: GET, HEAD), naming no token, valid or not", async () => {
      const link = await newLink({});
      const [id] = link.token.split(".") as [string];
      const unknown = { url: `${root()}/review/${id}.${"A".repeat(43)}` };
      for (const at of [link, unknown])
        for (const rest of ["", `/object/${encodeURIComponent(data)}`, "/package", "/other"])
          for (const method of ["POST", "PUT", "DELETE", "PATCH"]) {
            const response = await read(at, rest, { method, body: "x=1" });
            const body = await response.text();
            assert.equal(response.status, 405, `${method} ${rest}`);
            assert.equal(response.headers.get("allow"), "GET, HEAD");
            assert.equal(response.headers.get("referrer-policy"), "no-referrer");
            assert.equal(response.headers.get("cache-control"), "no-store");
            assert.ok(!body.includes(id) && !JSON.stringify([...response.headers]).includes(id), body);
          }
      // The link still opens: a refused method is no read and ends nothing.
      assert.equal((await read(link)).status, 200);
    });

    it("opens nothing else: other versions, other private objects, another package, another's member", async () => {
      const link = await newLink({});
      for (const pid of [newerMetadata, otherPrivate, otherData, otherMap, foreign, map]) {
        const error = await checkedError(await read(link, `/object/${encodeURIComponent(pid)}`));
        assert.deepEqual([error.status, error.name], [404, "NotFound"], pid);
        assert.ok(!error.body.includes("another private object"));
      }
      for (const rest of ["/views/default/x", "/package/extra", "/meta/x", "/object"]) {
        const response = await read(link, rest);
        assert.ok([400, 404].includes(response.status), `${rest}: ${response.status}`);
      }
      const traversal = await fetch(
        `${link.url}/object/..%2F..%2Fv2%2Fobject%2F${encodeURIComponent(otherPrivate)}`,
      );
      assert.equal(traversal.status, 404);
    });

    it("is no bearer token: every DataONE read path refuses it", async () => {
      const link = await newLink({});
      const asBearer: Caller = { baseUrl: node.baseUrl, token: link.token };
      const paths: [string, string][] = [
        ["GET", `/object/${enc(metadata)}`],
        ["GET", `/object/${enc(data)}`],
        ["HEAD", `/object/${enc(data)}`],
        ["GET", `/meta/${enc(metadata)}`],
        ["GET", `/checksum/${enc(data)}`],
        ["GET", `/views/default/${enc(metadata)}`],
        ["GET", `/packages/${enc("application/bagit-097")}/${enc(map)}`],
        ["GET", "/object"],
        ["GET", `/object?formatId=${encodeURIComponent(EML_FORMAT)}`],
        ["GET", "/log"],
        ["GET", "/query/solr/?q=*:*"],
        ["GET", `/object/${enc(newerMetadata)}`],
        ["GET", `/object/${enc(otherPrivate)}`],
        ["GET", `/isAuthorized/${enc(metadata)}?action=read`],
      ];
      for (const [method, path] of paths) {
        const response = await call(asBearer, method, path);
        assert.equal(response.status, 401, `${method} ${path}`);
        if (method !== "HEAD") {
          const error = await checkedError(response);
          assert.equal(error.name, "InvalidToken", `${method} ${path}`);
        }
      }
      const v1 = await call({ ...asBearer, version: "v1" }, "GET", `/object/${enc(data)}`);
      assert.equal(v1.status, 401, "v1 get");
      const posted = await call(asBearer, "POST", "/query/solr/", {
        headers: { "content-type": "application/x-www-form-urlencoded" },
        body: "q=*:*",
      });
      assert.equal(posted.status, 401, "POST query");
      for (const path of [
        `/linksets/${encodeURIComponent(metadata)}`,
        "/review-links",
        `/cn/v2/resolve/${encodeURIComponent(metadata)}`,
        `/cn/v2/accounts/${encodeURIComponent(OWNER)}`,
        "/oai?verb=ListIdentifiers&metadataPrefix=oai_dc",
      ]) {
        const response = await fetch(`${root()}${path}`, {
          headers: { authorization: `Bearer ${link.token}` },
        });
        assert.equal(response.status, 401, path);
      }
      // Anonymous, as a reviewer's browser is everywhere but under the link: the dataset stays private.
      for (const path of [`/object/${enc(data)}`, `/meta/${enc(metadata)}`]) {
        const response = await call(anon, "GET", path);
        assert.equal(response.status, 401, path);
      }
      const search = await call(anon, "GET", "/query/solr/?q=*:*&fl=id");
      assert.ok(!(await search.text()).includes(metadata), "search shows no private object");
    });

    it("logs each read as the link, not as the rights holder", async () => {
      const link = await newLink({});
      await read(link);
      await read(link, `/object/${encodeURIComponent(data)}`);
      await read(link, "/package");
      await node.node.ctx.db.events.flush();
      const log = await (
        await call(admin, "GET", `/log?idFilter=${encodeURIComponent(data)}&count=1000`)
      ).text();
      await validateXml(log);
      const subject = `reviewLink:${link.id}`;
      const entries = [...log.matchAll(/<logEntry>([\s\S]*?)<\/logEntry>/g)].map((m) => m[1] as string);
      const byLink = entries.filter((e) => e.includes(`<subject>${subject}</subject>`));
      assert.ok(byLink.length >= 2, "the object read and the package read are the link's");
      assert.ok(byLink.every((e) => e.includes("<event>read</event>")));
      assert.ok(
        !entries.some((e) => e.includes(`<subject>${OWNER}</subject>`) && e.includes("<event>read</event>")),
      );
      assert.ok(!log.includes(link.token.split(".")[1] as string), "the secret is in no log record");
    });

    it("anonymised: no name on the page, in the metadata, the system metadata or the package's file names", async () => {
      const link = await newLink({ anonymise: true });
      const html = await (await read(link)).text();
      assert.match(html, /Bernoulli numbers by engine/);
      assert.match(html, /Withheld for review/);
      for (const name of NAMES) assert.ok(!html.includes(name), `the page shows "${name}"`);

      const eml = (await (await read(link, `/object/${encodeURIComponent(metadata)}`)).text()) as string;
      assert.match(eml, /<eml:eml xmlns:eml="https:\/\/eml\.ecoinformatics\.org\/eml-2\.2\.0"/);
      assert.match(eml, /<associatedParty><organizationName>Withheld for review<\/organizationName><role>/);
      assert.match(eml, /<abstract><para>Computed numbers\.<\/para><\/abstract>/);
      for (const name of NAMES.filter((n) => n !== "Babbage"))
        assert.ok(!eml.includes(name), `the EML holds "${name}"`);
      const csv = await read(link, `/object/${encodeURIComponent(data)}`);
      assert.match(csv.headers.get("content-disposition") ?? "", /filename="data-1\.csv"/);

      const files = await unzip(Buffer.from(await (await read(link, "/package")).arrayBuffer()));
      const { payload } = verifyManifests(files);
      assert.deepEqual(payload.sort(), ["data/data-1.csv", "data/metadata.xml"]);
      for (const [name, bytes] of files) {
        for (const n of NAMES.filter((x) => x !== "Babbage" || name !== "data/metadata.xml"))
          assert.ok(!name.includes(n) && !bytes.toString().includes(n), `${name} holds "${n}"`);
        if (name.startsWith("metadata/sysmeta/")) await validateXml(bytes.toString());
      }
    });

    it("is refused for metadata it cannot anonymise", async () => {
      const dc = uniquePid("iso");
      const iso =
        '<gmd:MD_Metadata xmlns:gmd="http://www.isotc211.org/2005/gmd" xmlns:gco="http://www.isotc211.org/2005/gco">' +
        "<gmd:contact><gco:CharacterString>Ada</gco:CharacterString></gmd:contact></gmd:MD_Metadata>";
      await put(admin, dc, Buffer.from(iso), { formatId: "http://www.isotc211.org/2005/gmd" });
      const error = await checkedError(await makeLink(owner, { pid: dc, anonymise: true }));
      assert.deepEqual([error.status, error.name], [400, "InvalidRequest"]);
      assert.equal((await makeLink(owner, { pid: dc })).status, 201);
    });

    it("ends at once when revoked, at its expiry, or for a wrong secret", async () => {
      const link = await newLink({});
      assert.equal((await read(link)).status, 200);
      const theirs = await checkedError(
        await fetch(`${root()}/review-links/${link.id}`, {
          method: "DELETE",
          headers: { authorization: `Bearer ${other.token}` },
        }),
      );
      assert.equal(theirs.name, "NotFound");
      assert.equal((await read(link)).status, 200, "another's revocation changed nothing");
      const revoked = await fetch(`${root()}/review-links/${link.id}`, {
        method: "DELETE",
        headers: { authorization: `Bearer ${owner.token}` },
      });
      assert.equal(revoked.status, 200);
      for (const rest of ["", `/object/${encodeURIComponent(data)}`, "/package"]) {
        const response = await read(link, rest);
        assert.equal(
          response.headers.get("referrer-policy"),
          "no-referrer",
          "refusals send no Referer either",
        );
        const error = await checkedError(response);
        assert.deepEqual([error.status, error.name], [401, "NotAuthorized"], rest);
      }

      const page = await read(link, "", { headers: { accept: "text/html,application/xhtml+xml,*/*;q=0.8" } });
      assert.equal(page.status, 401);
      assert.match(await page.text(), /This reviewer link is not valid/);

      const soon = await newLink({ expires: new Date(Date.now() + 1500).toISOString() });
      assert.equal((await read(soon)).status, 200);
      await new Promise((resolve) => setTimeout(resolve, 1600));
      assert.equal((await read(soon)).status, 401);

      const fresh = await newLink({});
      const [id, secret] = fresh.token.split(".") as [string, string];
      const wrong = `${id}.${secret.slice(0, -1)}${secret.endsWith("A") ? "B" : "A"}`;
      for (const token of [wrong, id, `${id}.`, "x".repeat(60), `${"A".repeat(16)}.${secret}`]) {
        const response = await fetch(`${root()}/review/${token}`);
        assert.equal(response.status, 401, token);
      }
    });

    it("is made, listed and revoked with `d1node review-link`", async () => {
      const tokenFile = path.join(node.dataDir, "owner.token");
      await writeFile(tokenFile, owner.token ?? "");
      const flags = ["--node", root(), "--token-file", tokenFile];
      const made = await runCli([
        "review-link",
        "create",
        map,
        "--days",
        "7",
        "--anonymise",
        "--label",
        "editor",
        ...flags,
      ]);
      assert.equal(made.code, 0, made.stderr);
      const url = made.stdout.trim();
      assert.match(url, /\/review\/[A-Za-z0-9_-]{16}\.[A-Za-z0-9_-]{43}$/);
      assert.equal((await fetch(url)).status, 200);
      const id = /\/review\/([A-Za-z0-9_-]{16})\./.exec(url)?.[1] ?? "";
      const listed = await runCli(["review-link", "list", "--pid", map, ...flags]);
      assert.equal(listed.code, 0, listed.stderr);
      assert.match(listed.stdout, new RegExp(`^${id}  ${map}  until .*\\(anonymised, editor\\)$`, "m"));
      assert.ok(!listed.stdout.includes(url.split(".").pop() as string));
      const revoked = await runCli(["review-link", "revoke", id, ...flags]);
      assert.equal(revoked.code, 0, revoked.stderr);
      assert.equal((await fetch(url)).status, 401);
      const again = await runCli(["review-link", "revoke", "nosuchlink", ...flags]);
      assert.equal(again.code, 2);
      const refused = await runCli(["review-link", "create", data, ...flags]);
      assert.equal(refused.code, 1);
      assert.match(refused.stderr, /InvalidRequest/);
    });

    it("opens a lone metadata document, and ends when the dataset passes to another rights holder", async () => {
      const solo = uniquePid("solo");
      await put(admin, solo, EML, { formatId: EML_FORMAT });
      const response = await makeLink(owner, { pid: solo });
      assert.equal(response.status, 201);
      const link = (await response.json()) as { url: string; package: string | null };
      assert.equal(link.package, null);
      assert.equal((await read(link)).status, 200);
      assert.equal((await read(link, `/object/${encodeURIComponent(solo)}`)).status, 200);
      assert.equal((await read(link, "/package")).status, 404);
      assert.equal((await read(link, "", { method: "HEAD" })).status, 200);
      const noPackage = await read(link, "/package", { method: "HEAD" });
      assert.deepEqual(
        [noPackage.status, noPackage.headers.get("dataone-exception-name")],
        [404, "NotFound"],
      );

      const xml = await (await call(admin, "GET", `/meta/${enc(solo)}`)).text();
      const moved = xml.replace(
        /<rightsHolder>[^<]*<\/rightsHolder>/,
        `<rightsHolder>${OTHER}</rightsHolder>`,
      );
      const updated = await updateSysmeta(admin, solo, moved);
      assert.equal(updated.status, 200, await updated.text());
      const error = await checkedError(await read(link));
      assert.deepEqual([error.status, error.name], [401, "NotAuthorized"]);
    });

    // Several serving processes share a PostgreSQL database (one process holds a SQLite file).
    it("ends at once when another serving process revokes it (nothing is cached)", {
      skip: dialect === "sqlite",
    }, async () => {
      const link = await newLink({});
      assert.equal((await read(link)).status, 200);
      const { databaseUrl } = node.node.ctx.config;
      const elsewhere = await openNodeDatabase({ url: databaseUrl });
      try {
        await elsewhere.reviewLinks.revoke(link.id, Date.now());
      } finally {
        await elsewhere.close();
      }
      assert.equal((await read(link)).status, 401);
    });
  });
}
