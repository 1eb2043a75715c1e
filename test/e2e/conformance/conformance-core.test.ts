/**
 * DataONE MN web-tester checklist, CoreTestImplementations: ping, getCapabilities, getLogRecords. The CN
 * certificate of the checklist is a CN_SUBJECT token, "no certificate" an anonymous call.
 */
import assert from "node:assert/strict";
import { before, describe, it } from "node:test";
import { type Caller, call, checkedError, create, enc, okXml } from "../../helpers/clients/client.ts";
import { elementText, uniquePid } from "../../helpers/data/sysmeta.ts";
import { ADMIN, CN_SUBJECT, startTestNode, testDialects, withTestNode } from "../../helpers/nodes/node.ts";
import { clockPast } from "../../helpers/time/eventually.ts";

const USER = "CN=Log Tester,DC=example,DC=org";
const VERSIONS = ["v1", "v2"] as const;

/** RFC 2253 distinguished name: RDNs of type=value joined by "," (multi-valued with "+"). */
const ATTR = String.raw`(?:[A-Za-z][A-Za-z0-9-]*|\d+(?:\.\d+)*)`;
const VALUE = String.raw`(?:[^,+"\\<>;=]|\\[,+"\\<>;=# ]|\\[0-9A-Fa-f]{2})+`;
const RDN = `${ATTR}=${VALUE}(?:\\+${ATTR}=${VALUE})*`;
const RFC2253 = new RegExp(`^${RDN}(?:,${RDN})*$`);

interface Entry {
  entryId: string;
  identifier: string;
  event: string;
  dateLogged: string;
}

function entries(log: string): Entry[] {
  return [...log.matchAll(/<logEntry>([\s\S]*?)<\/logEntry>/g)].map(([, body = ""]) => ({
    entryId: elementText(body, "entryId") ?? "",
    identifier: elementText(body, "identifier") ?? "",
    event: elementText(body, "event") ?? "",
    dateLogged: elementText(body, "dateLogged") ?? "",
  }));
}

const attr = (xml: string, name: string) => Number(new RegExp(`\\s${name}="(\\d+)"`).exec(xml)?.[1]);

for (const dialect of testDialects()) {
  describe(`conformance: CoreTestImplementations (${dialect})`, () => {
    const node = withTestNode(dialect);
    let cn: Caller;
    let anon: Caller;
    const pids = [uniquePid("core-a"), uniquePid("core-b"), uniquePid("core-c")];
    before(async () => {
      cn = { baseUrl: node.baseUrl, token: await node.token(CN_SUBJECT) };
      anon = { baseUrl: node.baseUrl };
      const user = { baseUrl: node.baseUrl, token: await node.token(USER) };
      for (const pid of pids) {
        assert.equal((await create(user, pid, Buffer.from(`${pid}\n`), { rightsHolder: USER })).status, 200);
        await clockPast(); // distinct dateLogged values for the date filter
        assert.equal((await call(anon, "GET", `/object/${enc(pid)}`)).status, 200);
        await clockPast();
      }
    });

    const log = async (c: Caller, query = "") => okXml(await call(c, "GET", `/log${query}`));

    for (const version of VERSIONS) {
      it(`testPing + testPing_AccurateDate (${version}): 200 without a certificate, Date within a minute`, async () => {
        const before = Date.now();
        const response = await call({ ...anon, version }, "GET", "/monitor/ping");
        const afterCall = Date.now();
        assert.equal(response.status, 200);
        const date = Date.parse(response.headers.get("date") ?? "");
        assert.ok(!Number.isNaN(date), "the Date header parses as a date");
        assert.ok(Math.abs(date - Date.now()) < 60_000);
        // The header has whole seconds: it lies in the second the call was made.
        assert.ok(date >= Math.floor(before / 1000) * 1000 - 1000 && date <= afterCall + 1000);
      });

      it(`testGetCapabilities (${version}): a Node document`, async () => {
        const xml = await okXml(await call({ ...anon, version }, "GET", "/node"));
        assert.match(xml, /<(\w[\w.-]*:)?node[\s>]/);
        assert.match(xml, /type="mn"/);
      });

      it(`testGetCapabilities_HasCompatibleNodeContact (${version}): an RFC 2253 contactSubject`, async () => {
        const xml = await okXml(await call({ ...anon, version }, "GET", "/node"));
        const contacts = [...xml.matchAll(/<contactSubject>([^<]*)<\/contactSubject>/g)].map(
          (m) => m[1] ?? "",
        );
        assert.ok(contacts.length > 0, "at least one contactSubject");
        assert.ok(
          contacts.some((c) => RFC2253.test(c)),
          `no RFC 2253 contactSubject in ${contacts.join(" | ")}`,
        );
      });

      it(`testGetCapabilities_NodeIdentityValidFormat (${version}): urn:node:[\\w_]{2,23}`, async () => {
        const xml = await okXml(await call({ ...anon, version }, "GET", "/node"));
        assert.match(elementText(xml, "identifier") ?? "", /^urn:node:[\w_]{2,23}$/);
      });

      it(`testGetLogRecords_AccessRestriction (${version}): anonymous callers are refused`, async () => {
        const refused = await checkedError(await call({ ...anon, version }, "GET", "/log"));
        assert.equal(refused.name, "NotAuthorized");
        assert.equal(refused.detailCode, "1460");
      });

      it(`testGetLogRecords (${version}): a Log with no parameters and with every parameter`, async () => {
        const all = await log({ ...cn, version });
        assert.ok(entries(all).length >= pids.length * 2);
        const filter = version === "v2" ? "idFilter" : "pidFilter";
        const from = new Date(Date.now() - 1000).toISOString();
        const to = new Date().toISOString();
        const every = await log(
          { ...cn, version },
          `?fromDate=${from}&toDate=${to}&event=read&${filter}=pidFilter&start=0&count=10`,
        );
        assert.equal(attr(every, "start"), 0);
      });

      it(`testGetLogRecords_Slicing (${version}): count and total agree, count limits`, async () => {
        const all = await log({ ...cn, version });
        const count = attr(all, "count");
        assert.equal(count, entries(all).length);
        assert.ok(attr(all, "total") >= count);
        const half = Math.floor(count / 2);
        const sliced = await log({ ...cn, version }, `?start=0&count=${half}`);
        assert.equal(entries(sliced).length, half);
        assert.equal(attr(sliced, "count"), half);
        assert.equal(attr(sliced, "total"), attr(all, "total"));
        const none = await log({ ...cn, version }, "?count=0");
        assert.equal(entries(none).length, 0);
        assert.equal(attr(none, "total"), attr(all, "total"));
        const tail = await log({ ...cn, version }, `?start=${half}&count=${count}`);
        assert.deepEqual(
          [...entries(sliced), ...entries(tail)].map((e) => e.entryId),
          entries(all).map((e) => e.entryId),
        );
      });

      it(`testGetLogRecords_eventFiltering (${version}): only the asked-for event`, async () => {
        const toDate = new Date(Date.now() + 1000).toISOString();
        const all = entries(await log({ ...cn, version }, `?toDate=${toDate}`));
        const types = new Set(all.map((e) => e.event));
        assert.ok(types.has("create") && types.has("read"), [...types].join());
        for (const event of types) {
          const filtered = await log({ ...cn, version }, `?toDate=${toDate}&event=${event}`);
          const got = entries(filtered);
          assert.ok(got.length > 0 && got.length < all.length);
          assert.ok(got.every((e) => e.event === event));
          assert.equal(attr(filtered, "total"), all.filter((e) => e.event === event).length);
        }
        // An event type the log does not hold (the checklist's single-type case): total 0.
        const none = await log({ ...cn, version }, `?toDate=${toDate}&event=replicate&count=0`);
        assert.equal(attr(none, "total"), 0);
      });

      it(`testGetLogRecords_pidFiltering (${version}): the filter removes other identifiers`, async () => {
        const filter = version === "v2" ? "idFilter" : "pidFilter";
        const [target = "", other = ""] = pids;
        const filtered = entries(await log({ ...cn, version }, `?${filter}=${encodeURIComponent(target)}`));
        assert.ok(filtered.length > 0);
        assert.ok(filtered.every((e) => e.identifier === target));
        assert.ok(!filtered.some((e) => e.identifier === other));
        const derived = `${target}${Date.now()}`;
        const empty = await log({ ...cn, version }, `?${filter}=${encodeURIComponent(derived)}&count=0`);
        assert.equal(attr(empty, "total"), 0);
      });

      it(`testGetLogRecords_dateFiltering (${version}): fromDate excludes earlier records`, async () => {
        const all = entries(await log({ ...cn, version }));
        const first = all[0];
        const later = all.find((e) => first && Date.parse(e.dateLogged) > Date.parse(first.dateLogged));
        assert.ok(first && later, "two records with different dateLogged");
        const since = entries(await log({ ...cn, version }, `?fromDate=${later.dateLogged}`));
        assert.ok(!since.some((e) => e.entryId === first.entryId));
        assert.ok(
          since.some((e) => e.entryId === later.entryId),
          "fromDate is inclusive",
        );
        assert.ok(since.every((e) => Date.parse(e.dateLogged) >= Date.parse(later.dateLogged)));
      });
    }

    it("testGetLogRecords_AccessRestriction: with logReaders=readers an anonymous log lists only public objects", async () => {
      const open = await startTestNode(dialect, { logReaders: "readers" });
      try {
        const user = { baseUrl: open.baseUrl, token: await open.token(USER) };
        const visitor = { baseUrl: open.baseUrl };
        const [pub, priv] = [uniquePid("public"), uniquePid("private")];
        assert.equal((await create(user, pub, Buffer.from("p"), { rightsHolder: USER })).status, 200);
        const closed = { rightsHolder: USER, readers: [] };
        assert.equal((await create(user, priv, Buffer.from("q"), closed)).status, 200);
        const listed = entries(await okXml(await call(visitor, "GET", "/log")));
        assert.ok(listed.some((e) => e.identifier === pub));
        assert.ok(!listed.some((e) => e.identifier === priv));
        for (const e of listed) {
          const described = await call(visitor, "HEAD", `/object/${enc(e.identifier)}`);
          assert.ok([200, 404].includes(described.status), `${e.identifier}: ${described.status}`);
        }
        const admin = { baseUrl: open.baseUrl, token: await open.token(ADMIN) };
        const everything = entries(await okXml(await call(admin, "GET", "/log")));
        assert.ok(everything.some((e) => e.identifier === priv));
      } finally {
        await open.close();
      }
    });
  });
}
