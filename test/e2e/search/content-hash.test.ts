/**
 * Lookup by content hash on a Member Node and a Coordinating Node, SQLite and PostgreSQL: `checksum:<hex>` in
 * search matches the system metadata's checksum of any algorithm (either case, quoted or not) and the SHA-256 of
 * bytes the node holds, with R contentid's exact query; `GET /resolve/hash://sha256/<hex>` answers 303 and an
 * ObjectLocationList (valid against the XSD) of the readable objects with those bytes; a private object is
 * neither found nor resolved for others; an unknown hash is NotFound. Each result's `dataUrl` (fl, the default
 * fields, wt=xml) is where contentid downloads it: on a Member Node its get URL, which returns the bytes; on a
 * Coordinating Node its resolve URL, which answers 303 to a copy's bytes.
 */
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { before, describe, it } from "node:test";
import { type Caller, call, checkedError, create, enc, form, okXml } from "../../helpers/clients/client.ts";
import { sysmetaXml, uniquePid } from "../../helpers/data/sysmeta.ts";
import { ADMIN, CN_SUBJECT, testDialects, withTestNode } from "../../helpers/nodes/node.ts";
import { validateXml } from "../../helpers/validation/xmllint.ts";

const OWNER = "CN=Hash Owner,DC=example,DC=org";
const MN_ID = "urn:node:HASHMN";
const MN_SUBJECT = "CN=urn:node:HASHMN,DC=dataone,DC=org";
const MN_BASE = "https://hashmn.example.org/mn";

const digest = (algorithm: string, bytes: Buffer) => createHash(algorithm).update(bytes).digest("hex");

interface SolrJson {
  response: { numFound: number; docs: Record<string, unknown>[] };
}

/** R contentid's query (sources_dataone) for `hex`. */
const CONTENTID_QUERY = (hex: string) =>
  `q=checksum:${hex}&fl=identifier,size,formatId,checksum,checksumAlgorithm,replicaMN,dataUrl&rows=10&wt=json`;

/** The document CONTENTID_QUERY finds for `pid`, CSV `bytes` whose system metadata gives their SHA-256. */
const contentidDoc = (pid: string, bytes: Buffer, dataUrl: string, more: Record<string, unknown> = {}) => ({
  identifier: pid,
  size: bytes.length,
  formatId: "text/csv",
  checksum: digest("sha256", bytes),
  checksumAlgorithm: "SHA-256",
  dataUrl,
  ...more,
});

/** The bytes at `url` for `c` (its token, if any), redirects followed; the status, and the bytes when 200. */
async function download(c: Caller, url: string): Promise<{ status: number; bytes: Buffer }> {
  const response = await fetch(url, c.token ? { headers: { Authorization: `Bearer ${c.token}` } } : {});
  return { status: response.status, bytes: Buffer.from(await response.arrayBuffer()) };
}

async function solr(c: Caller, query: string, version: "v1" | "v2" = "v2"): Promise<SolrJson> {
  const response = await call({ ...c, version }, "GET", `/query/solr/?${query}`);
  assert.equal(response.status, 200, await response.clone().text());
  return (await response.json()) as SolrJson;
}

/** The PIDs `checksum:<value>` finds for `c`, sorted. */
async function found(c: Caller, value: string, version: "v1" | "v2" = "v2"): Promise<string[]> {
  const q = encodeURIComponent(`checksum:${value}`);
  const answer = await solr(c, `q=${q}&fl=identifier&rows=100&wt=json`, version);
  return answer.response.docs.map((d) => d.identifier as string).sort();
}

/** A resolve answered 303: the Location and the ObjectLocationList's URLs, the body checked against the XSD. */
async function resolved(
  c: Caller,
  path: string,
): Promise<{ location: string; urls: string[]; body: string }> {
  const response = await call(c, "GET", path, { redirect: "manual" });
  const body = await response.text();
  assert.equal(response.status, 303, body);
  await validateXml(body);
  const urls = [...body.matchAll(/<url>([^<]*)<\/url>/g)].map((m) =>
    (m[1] as string).replaceAll("&amp;", "&"),
  );
  return { location: response.headers.get("location") ?? "", urls, body };
}

for (const dialect of testDialects()) {
  describe(`content hash on a Member Node (${dialect})`, () => {
    const node = withTestNode(dialect);
    let admin: Caller;
    let owner: Caller;
    let anon: Caller;
    const tag = uniquePid("hash");
    const shaBytes = Buffer.from(`${tag} bytes under SHA-256`);
    const sharedBytes = Buffer.from(`${tag} bytes of two objects`);
    const privateBytes = Buffer.from(`${tag} private bytes`);
    const shaPid = `${tag}-sha256`;
    const md5Pid = `${tag}-md5`;
    const sha1Pid = `${tag}-sha1`;
    const privatePid = `${tag}-private`;

    before(async () => {
      admin = { baseUrl: node.baseUrl, token: await node.token(ADMIN) };
      owner = { baseUrl: node.baseUrl, token: await node.token(OWNER) };
      anon = { baseUrl: node.baseUrl };
      const made = [
        // The checksum as some clients write it: upper-case hex.
        await create(admin, shaPid, shaBytes, {
          algorithm: "SHA-256",
          checksum: digest("sha256", shaBytes).toUpperCase(),
        }),
        await create(admin, md5Pid, sharedBytes, { algorithm: "MD5" }),
        await create(admin, sha1Pid, sharedBytes, { algorithm: "SHA-1" }),
        await create(admin, privatePid, privateBytes, {
          algorithm: "MD5",
          rightsHolder: OWNER,
          readers: [OWNER],
        }),
      ];
      for (const response of made) assert.equal(response.status, 200, await response.text());
    });

    it("checksum:<hex> finds the sysmeta checksum of any algorithm, in either case, quoted or not", async () => {
      const sha = digest("sha256", shaBytes);
      assert.deepEqual(await found(anon, sha), [shaPid]);
      assert.deepEqual(await found(anon, sha.toUpperCase()), [shaPid]);
      assert.deepEqual(await found(anon, `"${sha}"`), [shaPid]);
      assert.ok((await found(anon, digest("md5", sharedBytes).toUpperCase())).includes(md5Pid));
      // The objects share their bytes: each is found by the other's digest too once the node has recorded it.
      assert.ok((await found(anon, digest("sha1", sharedBytes))).includes(sha1Pid));
      assert.deepEqual(await found(anon, sha, "v1"), [shaPid]);
    });

    it("checksum:<sha256> finds every object with those bytes, whatever its sysmeta's algorithm", async () => {
      assert.deepEqual(await found(anon, digest("sha256", sharedBytes)), [md5Pid, sha1Pid].sort());
      assert.deepEqual(
        await found(anon, digest("sha256", sharedBytes).toUpperCase()),
        [md5Pid, sha1Pid].sort(),
      );
    });

    it("R contentid's query: identifier, size, formatId, checksum, checksumAlgorithm and dataUrl", async () => {
      const sha = digest("sha256", shaBytes);
      const answer = await solr(anon, CONTENTID_QUERY(sha));
      // The checksum as the node stored it (a Member Node keeps the hex it computed, in lower case).
      assert.deepEqual(answer.response.docs, [
        contentidDoc(shaPid, shaBytes, `${node.baseUrl}/v2/object/${encodeURIComponent(shaPid)}`),
      ]);
    });

    it("contentid's download: each result's dataUrl returns the object's bytes", async () => {
      const answer = await solr(anon, CONTENTID_QUERY(digest("sha256", sharedBytes)));
      const urls = answer.response.docs.map((d) => d.dataUrl as string).sort();
      assert.deepEqual(
        urls,
        [md5Pid, sha1Pid].map((pid) => `${node.baseUrl}/v2/object/${encodeURIComponent(pid)}`).sort(),
      );
      for (const url of urls) {
        const got = await download(anon, url);
        assert.equal(got.status, 200, url);
        assert.deepEqual(got.bytes, sharedBytes, url);
      }
      const sha = await solr(anon, CONTENTID_QUERY(digest("sha256", shaBytes)));
      assert.deepEqual((await download(anon, sha.response.docs[0]?.dataUrl as string)).bytes, shaBytes);
    });

    it("dataUrl: in the default fields, under an alias, in wt=xml and v1; a PID of any characters encoded once", async () => {
      const sha = digest("sha256", shaBytes);
      const url = `${node.baseUrl}/v2/object/${encodeURIComponent(shaPid)}`;
      const all = await solr(anon, `q=checksum:${sha}&wt=json`);
      assert.equal(all.response.docs[0]?.dataUrl, url);
      assert.equal(all.response.docs[0]?.id, shaPid);
      const aliased = await solr(anon, `q=checksum:${sha}&fl=id,url:dataUrl&wt=json`);
      assert.deepEqual(aliased.response.docs, [{ id: shaPid, url }]);
      assert.equal(
        (await solr(anon, `q=checksum:${sha}&fl=dataUrl&wt=json`, "v1")).response.docs[0]?.dataUrl,
        url,
      );
      const xml = await call(anon, "GET", `/query/solr/?q=checksum:${sha}&fl=identifier,dataUrl`);
      assert.equal(xml.status, 200);
      assert.ok((await xml.text()).includes(`<str name="dataUrl">${url}</str>`));
      // Not a field the index holds values of: it is made for each answer (DataONE's schema: stored, not indexed).
      assert.equal((await solr(anon, `q=dataUrl:*&fl=id&wt=json`)).response.numFound, 0);

      const oddPid = `${tag}-odd/a?b#c%20d+é&e=f`;
      const oddBytes = Buffer.from(`${tag} bytes of an odd PID`);
      const made = await create(admin, oddPid, oddBytes, { algorithm: "MD5" });
      assert.equal(made.status, 200, await made.text());
      const odd = await solr(anon, CONTENTID_QUERY(digest("md5", oddBytes)));
      const oddUrl = odd.response.docs[0]?.dataUrl as string;
      assert.equal(oddUrl, `${node.baseUrl}/v2/object/${encodeURIComponent(oddPid)}`);
      assert.deepEqual((await download(anon, oddUrl)).bytes, oddBytes);
    });

    it("a private object is found by those who may read it only", async () => {
      const md5 = digest("md5", privateBytes);
      const sha = digest("sha256", privateBytes);
      assert.deepEqual(await found(anon, md5), []);
      assert.deepEqual(await found(anon, sha), []);
      assert.deepEqual(await found(owner, md5), [privatePid]);
      assert.deepEqual(await found(owner, sha), [privatePid]);
      for (const caller of [anon, { ...anon, token: await node.token("CN=Someone Else,DC=org") }]) {
        const hidden = await checkedError(await call(caller, "GET", `/resolve/hash://sha256/${sha}`));
        assert.equal(hidden.name, "NotFound");
        assert.doesNotMatch(hidden.body, new RegExp(privatePid));
      }
      const shown = await resolved(owner, `/resolve/hash://sha256/${sha}`);
      assert.equal(shown.location, `${node.baseUrl}/v2/object/${encodeURIComponent(privatePid)}`);
      // Its dataUrl is given to its reader, whose download it serves; to anyone else it gives nothing.
      const url = (await solr(owner, CONTENTID_QUERY(sha))).response.docs[0]?.dataUrl as string;
      assert.equal(url, `${node.baseUrl}/v2/object/${encodeURIComponent(privatePid)}`);
      assert.deepEqual((await download(owner, url)).bytes, privateBytes);
      const refused = await download(anon, url);
      assert.equal(refused.status, 401);
      assert.ok(!refused.bytes.includes(privateBytes));
    });

    it("resolve hash://sha256/<hex>: 303 to the first object's get URL, every object with the bytes listed", async () => {
      const sha = digest("sha256", sharedBytes);
      for (const path of [
        `/resolve/hash://sha256/${sha}`,
        `/resolve/${encodeURIComponent(`hash://sha256/${sha.toUpperCase()}`)}`,
        `/resolve/hash://SHA256/${sha}`,
      ]) {
        const answer = await resolved(anon, path);
        const urls = [md5Pid, sha1Pid].map((pid) => `${node.baseUrl}/v2/object/${encodeURIComponent(pid)}`);
        assert.equal(answer.location, urls[0], path);
        assert.deepEqual(answer.urls, urls, path);
        assert.match(answer.body, /<identifier>hash:\/\/(sha256|SHA256)\//i);
      }
      const bytes = await fetch((await resolved(anon, `/resolve/hash://sha256/${sha}`)).location);
      assert.deepEqual(Buffer.from(await bytes.arrayBuffer()), sharedBytes);
      const md5 = await resolved(anon, `/resolve/hash://md5/${digest("md5", sharedBytes)}`);
      assert.equal(md5.urls[0], `${node.baseUrl}/v2/object/${encodeURIComponent(md5Pid)}`);
    });

    it("an unknown hash, a malformed one, or another identifier is NotFound", async () => {
      for (const path of [
        `/resolve/hash://sha256/${"0".repeat(64)}`,
        `/resolve/hash://sha256/${digest("sha256", sharedBytes).slice(2)}`,
        "/resolve/hash://sha256/not-hex",
        `/resolve/${enc(md5Pid)}`,
      ]) {
        const error = await checkedError(await call(anon, "GET", path));
        assert.equal(error.name, "NotFound", path);
        assert.equal(error.status, 404, path);
      }
      assert.deepEqual(await found(anon, "0".repeat(64)), []);
    });
  });

  describe(`content hash on a Coordinating Node (${dialect})`, () => {
    const node = withTestNode(dialect, { role: "cn", nodeId: "urn:node:TESTCN" });
    let admin: Caller;
    let cn: Caller;
    let owner: Caller;
    let anon: Caller;
    const tag = uniquePid("cnhash");
    const md5Bytes = Buffer.from(`${tag} on a Member Node, MD5`);
    const shaBytes = Buffer.from(`${tag} on a Member Node, SHA-256`);
    const heldBytes = Buffer.from(`${tag} held by the CN, SHA-1`);
    const privateBytes = Buffer.from(`${tag} private, SHA-256`);
    const md5Pid = `${tag}-md5`;
    const shaPid = `${tag}-sha256`;
    const heldPid = `${tag}-held`;
    const privatePid = `${tag}-private`;
    const onMn = `<authoritativeMemberNode>${MN_ID}</authoritativeMemberNode><replica><replicaMemberNode>${MN_ID}</replicaMemberNode><replicationStatus>completed</replicationStatus><replicaVerified>2026-01-01T00:00:00Z</replicaVerified></replica>`;
    const register = (pid: string, xml: string) =>
      call(cn, "POST", "/meta", { body: form({ pid, sysmeta: { xml } }) });

    before(async () => {
      admin = { baseUrl: node.baseUrl, token: await node.token(ADMIN) };
      cn = { baseUrl: node.baseUrl, token: await node.token(CN_SUBJECT) };
      owner = { baseUrl: node.baseUrl, token: await node.token(OWNER) };
      anon = { baseUrl: node.baseUrl };
      const mn = { baseUrl: node.baseUrl, token: await node.token(MN_SUBJECT) };
      const nodeXml = `<?xml version="1.0" encoding="UTF-8"?><d1:node xmlns:d1="http://ns.dataone.org/service/types/v2.0" replicate="false" synchronize="false" type="mn" state="up"><identifier>${MN_ID}</identifier><name>Hash MN</name><description>A test node</description><baseURL>${MN_BASE}</baseURL><services><service name="MNRead" version="v2" available="true"/></services><subject>${MN_SUBJECT}</subject><contactSubject>${MN_SUBJECT}</contactSubject></d1:node>`;
      await okXml(await call(mn, "POST", "/node", { body: form({ node: { xml: nodeXml } }) }));
      const approved = await fetch(`${node.baseUrl}/admin/nodes/${MN_ID}/approval`, {
        method: "PUT",
        headers: { Authorization: `Bearer ${admin.token}` },
      });
      assert.equal(approved.status, 200, await approved.text());
      const made = [
        await register(
          md5Pid,
          sysmetaXml(md5Pid, md5Bytes, {
            algorithm: "MD5",
            checksum: digest("md5", md5Bytes).toUpperCase(),
            extra: onMn,
          }),
        ),
        await register(shaPid, sysmetaXml(shaPid, shaBytes, { algorithm: "SHA-256", extra: onMn })),
        await register(
          privatePid,
          sysmetaXml(privatePid, privateBytes, {
            algorithm: "SHA-256",
            rightsHolder: OWNER,
            readers: [OWNER],
            extra: onMn,
          }),
        ),
        await create(admin, heldPid, heldBytes, { algorithm: "SHA-1" }),
      ];
      for (const response of made) assert.equal(response.status, 200, await response.text());
    });

    it("checksum:<hex> finds the registered sysmeta checksum, any algorithm, either case", async () => {
      assert.deepEqual(await found(anon, digest("md5", md5Bytes)), [md5Pid]);
      assert.deepEqual(await found(anon, `"${digest("md5", md5Bytes)}"`), [md5Pid]);
      assert.deepEqual(await found(anon, digest("sha256", shaBytes).toUpperCase()), [shaPid]);
      assert.deepEqual(await found(anon, digest("sha1", heldBytes)), [heldPid]);
      assert.deepEqual(await found(anon, digest("md5", md5Bytes), "v1"), [md5Pid]);
    });

    it("SHA-256 of bytes the CN holds is known; of bytes only a Member Node holds, only when the sysmeta gives it", async () => {
      assert.deepEqual(await found(anon, digest("sha256", heldBytes)), [heldPid]);
      assert.deepEqual(await found(anon, digest("sha256", md5Bytes)), []);
    });

    it("R contentid's query on the CN: dataUrl is the CN's resolve URL", async () => {
      const sha = digest("sha256", shaBytes);
      const answer = await solr(anon, CONTENTID_QUERY(sha));
      assert.deepEqual(answer.response.docs, [
        contentidDoc(shaPid, shaBytes, `${node.baseUrl}/v2/resolve/${encodeURIComponent(shaPid)}`, {
          replicaMN: [MN_ID],
        }),
      ]);
      const all = await solr(anon, `q=checksum:${sha}&wt=json`);
      assert.equal(all.response.docs[0]?.dataUrl, `${node.baseUrl}/v2/resolve/${encodeURIComponent(shaPid)}`);
    });

    it("contentid's download on the CN: dataUrl resolves to a copy's bytes", async () => {
      // Held by a Member Node alone: 303 to its get URL.
      const remote = await solr(anon, CONTENTID_QUERY(digest("sha256", shaBytes)));
      const remoteUrl = remote.response.docs[0]?.dataUrl as string;
      const redirect = await fetch(remoteUrl, { redirect: "manual" });
      assert.equal(redirect.status, 303, await redirect.clone().text());
      assert.equal(redirect.headers.get("location"), `${MN_BASE}/v2/object/${encodeURIComponent(shaPid)}`);
      await validateXml(await redirect.text());
      // Held by the CN itself: the redirect, followed, returns the bytes.
      const held = await solr(anon, CONTENTID_QUERY(digest("sha1", heldBytes)));
      const heldUrl = held.response.docs[0]?.dataUrl as string;
      assert.equal(heldUrl, `${node.baseUrl}/v2/resolve/${encodeURIComponent(heldPid)}`);
      const got = await download(anon, heldUrl);
      assert.equal(got.status, 200);
      assert.deepEqual(got.bytes, heldBytes);
      // A private object's dataUrl resolves for its reader only.
      const sha = digest("sha256", privateBytes);
      const privateUrl = (await solr(owner, CONTENTID_QUERY(sha))).response.docs[0]?.dataUrl as string;
      assert.equal(privateUrl, `${node.baseUrl}/v2/resolve/${encodeURIComponent(privatePid)}`);
      const shown = await call(owner, "GET", `/resolve/${encodeURIComponent(privatePid)}`, {
        redirect: "manual",
      });
      assert.equal(shown.status, 303);
      const hidden = await fetch(privateUrl, { redirect: "manual" });
      assert.equal(hidden.status, 401);
      assert.doesNotMatch(await hidden.text(), new RegExp(MN_BASE));
    });

    it("resolve hash://sha256/<hex>: 303 to the Member Node holding the bytes, or to the CN's own copy", async () => {
      const remote = await resolved(anon, `/resolve/hash://sha256/${digest("sha256", shaBytes)}`);
      const mnUrl = `${MN_BASE}/v2/object/${encodeURIComponent(shaPid)}`;
      assert.equal(remote.location, mnUrl);
      assert.deepEqual(remote.urls, [mnUrl]);
      assert.match(remote.body, /<nodeIdentifier>urn:node:HASHMN<\/nodeIdentifier>/);
      const held = await resolved(
        anon,
        `/resolve/hash://sha256/${digest("sha256", heldBytes).toUpperCase()}`,
      );
      assert.equal(held.location, `${node.baseUrl}/v2/object/${encodeURIComponent(heldPid)}`);
      const md5 = await resolved(anon, `/resolve/hash://md5/${digest("md5", md5Bytes)}`);
      assert.equal(md5.location, `${MN_BASE}/v2/object/${encodeURIComponent(md5Pid)}`);
      const v1 = await call(
        { ...anon, version: "v1" },
        "GET",
        `/resolve/hash://sha256/${digest("sha256", shaBytes)}`,
        {
          redirect: "manual",
        },
      );
      assert.equal(v1.status, 303);
      await validateXml(await v1.text());
    });

    it("a private object is neither found nor resolved for others; unknown hashes are NotFound", async () => {
      const sha = digest("sha256", privateBytes);
      assert.deepEqual(await found(anon, sha), []);
      assert.deepEqual(await found(owner, sha), [privatePid]);
      const hidden = await checkedError(await call(anon, "GET", `/resolve/hash://sha256/${sha}`));
      assert.deepEqual([hidden.name, hidden.detailCode], ["NotFound", "4140"]);
      assert.doesNotMatch(hidden.body, new RegExp(privatePid));
      assert.equal((await resolved(owner, `/resolve/hash://sha256/${sha}`)).urls.length, 1);
      const unknown = await checkedError(await call(anon, "GET", `/resolve/hash://sha256/${"f".repeat(64)}`));
      assert.deepEqual([unknown.name, unknown.detailCode], ["NotFound", "4140"]);
      const known = await checkedError(
        await call(anon, "GET", `/resolve/hash://sha256/${digest("sha256", md5Bytes)}`),
      );
      assert.equal(known.name, "NotFound");
    });
  });
}
