/**
 * The scale-out deployment (docs/deployment.md, "Several serving processes behind a balancer"), every part its
 * own OS process: three `d1node serve --no-worker` and one `d1node worker` on one PostgreSQL database and one S3
 * bucket (a real RADOS Gateway), behind HAProxy on deploy/haproxy.cfg, round robin. Clients through the balancer
 * land on every process; racing writes on different processes keep one winner and one chain; a write answered by
 * one process is read on the others (directly, bypassing the balancer); deletes racing creates of the same bytes
 * on other processes never lose the new object's bytes; search answers agree across the processes.
 */
import assert from "node:assert/strict";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { loadOrCreateSigningKey } from "../../../src/auth/keys.ts";
import { mintToken } from "../../../src/auth/tokens.ts";
import { type Caller, call, create, enc, errorOf, okXml, update } from "../../helpers/clients/client.ts";
import { elementText, uniquePid } from "../../helpers/data/sysmeta.ts";
import { createTestPostgresDatabase, type TestPostgres } from "../../helpers/db/postgres.ts";
import { ADMIN, testDialects } from "../../helpers/nodes/node.ts";
import { type Deployment, HAPROXY_CONFIG, startDeployment } from "../../helpers/nodes/scale-out.ts";
import { createTestBucket, s3NodeSettings, type TestBucket } from "../../helpers/peers/s3.ts";
import { eventually } from "../../helpers/time/eventually.ts";

const RACERS = 6;

if (testDialects().includes("postgres")) {
  describe("three serving processes and a worker behind HAProxy, one PostgreSQL, one S3 bucket", () => {
    let dir: string;
    let database: TestPostgres;
    let bucket: TestBucket;
    let deployment: Deployment;
    /** Through the balancer. */
    let client: Caller;
    /** Each serving process directly. */
    let direct: Caller[];

    before(async () => {
      dir = await mkdtemp(path.join(tmpdir(), "d1node-scale-out-"));
      database = await createTestPostgresDatabase();
      bucket = await createTestBucket();
      // Every process checks tokens with the one signing key in the shared data folder.
      const token = await mintToken(loadOrCreateSigningKey(dir).privateKey, { subject: ADMIN });
      deployment = await startDeployment(
        dir,
        {
          nodeId: "urn:node:SCALEOUT",
          dataDir: dir,
          databaseUrl: database.url,
          ...s3NodeSettings(bucket),
          adminSubjects: [ADMIN],
          logLevel: "warn",
        },
        { apis: 3, workers: 1 },
      );
      client = { baseUrl: deployment.baseUrl, token };
      direct = deployment.apiUrls.map((baseUrl) => ({ baseUrl, token }));
    });
    after(async () => {
      await deployment?.stop();
      await bucket?.drop();
      await database?.drop();
      await rm(dir, { recursive: true, force: true });
    });

    /** The process (api1, api2, api3) that answered. */
    const servedBy = (response: Response) => response.headers.get("x-served-by") ?? "?";
    const others = (served: string) => direct.filter((_, i) => `api${i + 1}` !== served);
    const meta = async (c: Caller, pid: string) => okXml(await call(c, "GET", `/meta/${enc(pid)}`));
    const bytes = async (c: Caller, pid: string) => {
      const response = await call(c, "GET", `/object/${enc(pid)}`);
      assert.equal(response.status, 200, `get ${pid} from ${c.baseUrl}`);
      return Buffer.from(await response.arrayBuffer()).toString();
    };
    /** listObjects on one process: the identifiers starting with `prefix`. */
    const listed = async (c: Caller, prefix: string) => {
      const xml = await okXml(await call(c, "GET", "/object?count=1000"));
      return [...xml.matchAll(/<identifier>([^<]*)<\/identifier>/g)]
        .map((m) => m[1] as string)
        .filter((pid) => pid.startsWith(prefix))
        .sort();
    };
    /** A search's found identifiers and count, as one process answers it. */
    const search = async (c: Caller, q: string) => {
      const params = new URLSearchParams({ q, fl: "id", rows: "1000", sort: "id asc", wt: "json" });
      const response = await call(c, "GET", `/query/solr/?${params}`);
      assert.equal(response.status, 200);
      const body = (await response.json()) as { response: { numFound: number; docs: { id: string }[] } };
      return { numFound: body.response.numFound, ids: body.response.docs.map((doc) => doc.id) };
    };

    it("the balancer spreads requests over the three processes; HAProxy's file is the documented one", async () => {
      const served = new Set<string>();
      for (let i = 0; i < 9; i++) {
        const response = await call(client, "GET", "/monitor/ping");
        assert.equal(response.status, 200);
        served.add(servedBy(response));
      }
      assert.deepEqual([...served].sort(), ["api1", "api2", "api3"]);
      const documentation = await readFile(new URL("../../../docs/deployment.md", import.meta.url), "utf8");
      assert.ok(
        documentation.includes(await readFile(HAPROXY_CONFIG, "utf8")),
        "docs show deploy/haproxy.cfg",
      );
    });

    it("concurrent creates through the balancer land on every process and are all stored", async () => {
      const prefix = uniquePid("create");
      const pids = Array.from({ length: 30 }, (_, i) => `${prefix}-${String(i).padStart(2, "0")}`);
      const responses = await Promise.all(pids.map((pid) => create(client, pid, Buffer.from(`${pid}\n`))));
      for (const response of responses) assert.equal(response.status, 200, await response.clone().text());
      assert.deepEqual(new Set(responses.map(servedBy)).size, 3, "creates answered by all three processes");
      for (const c of direct) {
        assert.deepEqual(await listed(c, prefix), pids);
        assert.equal(await bytes(c, pids[7] as string), `${pids[7]}\n`);
      }
    });

    it("a write answered by one process is read on the others: get and getSystemMetadata at once, listObjects", async () => {
      const prefix = uniquePid("raw");
      for (let i = 0; i < 6; i++) {
        const pid = `${prefix}-${i}`;
        const response = await create(client, pid, Buffer.from(`written ${i}\n`));
        assert.equal(response.status, 200);
        for (const c of others(servedBy(response))) {
          assert.equal(await bytes(c, pid), `written ${i}\n`);
          assert.equal(elementText(await meta(c, pid), "identifier"), pid);
          // Lists on another process: once it heard the write's notice (milliseconds).
          await eventually(`${pid} listed by ${c.baseUrl}`, async () =>
            (await listed(c, prefix)).includes(pid) ? true : undefined,
          );
        }
      }
    });

    it("a search on another process finds a new object once that process heard of its index write", async () => {
      const pid = uniquePid("found");
      const response = await create(client, pid, Buffer.from("to be found\n"));
      assert.equal(response.status, 200);
      for (const c of others(servedBy(response))) {
        // The writer answers after indexing; the others hear of it through the database's notice (milliseconds).
        await eventually(`${c.baseUrl} finds ${pid}`, async () =>
          (await search(c, `id:"${pid}"`)).numFound === 1 ? true : undefined,
        );
      }
    });

    it("updates of one object racing on different processes: exactly one wins, no branch anywhere", async () => {
      const pid = uniquePid("race-update");
      assert.equal((await create(client, pid, Buffer.from("v1\n"))).status, 200);
      const newPids = Array.from({ length: RACERS }, (_, i) => `${pid}-next-${i}`);
      const responses = await Promise.all(
        newPids.map((next) => update(client, pid, next, Buffer.from(`${next}\n`))),
      );
      const statuses = responses.map((r) => r.status);
      assert.equal(statuses.filter((s) => s === 200).length, 1, `statuses: ${statuses.join(", ")}`);
      assert.ok(new Set(responses.map(servedBy)).size > 1, "the racers were answered by several processes");
      for (const response of responses.filter((r) => r.status !== 200)) {
        assert.ok(response.status >= 400 && response.status < 500, (await errorOf(response)).body);
      }
      const winner = newPids[statuses.indexOf(200)] as string;
      for (const c of direct) {
        await eventually(`${c.baseUrl} names the winner`, async () =>
          elementText(await meta(c, pid), "obsoletedBy") === winner ? true : undefined,
        );
        assert.equal(elementText(await meta(c, winner), "obsoletes"), pid);
        for (const next of newPids.filter((n) => n !== winner)) {
          assert.equal((await call(c, "GET", `/meta/${enc(next)}`)).status, 404, `${next} was refused`);
        }
      }
    });

    it("new versions of one series racing on different processes: one head, the SID resolves to it everywhere", async () => {
      const sid = uniquePid("sid");
      const first = uniquePid("series-v1");
      assert.equal((await create(client, first, Buffer.from("series v1\n"), { seriesId: sid })).status, 200);
      const newPids = Array.from({ length: RACERS }, (_, i) => `${first}-v2-${i}`);
      const responses = await Promise.all(
        newPids.map((next) => update(client, first, next, Buffer.from(`${next}\n`), { seriesId: sid })),
      );
      const statuses = responses.map((r) => r.status);
      assert.equal(statuses.filter((s) => s === 200).length, 1, `statuses: ${statuses.join(", ")}`);
      const head = newPids[statuses.indexOf(200)] as string;
      // Chains racing to claim one new SID: exactly one gets it.
      const claimed = uniquePid("claimed-sid");
      const claims = await Promise.all(
        Array.from({ length: RACERS }, (_, i) =>
          create(client, `${claimed}-chain-${i}`, Buffer.from(`chain ${i}\n`), { seriesId: claimed }),
        ),
      );
      const claimStatuses = claims.map((r) => r.status);
      assert.equal(claimStatuses.filter((s) => s === 200).length, 1, `claims: ${claimStatuses.join(", ")}`);
      assert.ok(claimStatuses.every((s) => s === 200 || (s >= 400 && s < 500)));
      const owner = `${claimed}-chain-${claimStatuses.indexOf(200)}`;
      for (const c of direct) {
        await eventually(`${c.baseUrl} resolves the SIDs to their heads`, async () =>
          elementText(await meta(c, sid), "identifier") === head &&
          elementText(await meta(c, claimed), "identifier") === owner
            ? true
            : undefined,
        );
      }
    });

    it("deletes racing creates of the same bytes on other processes never remove the new object's bytes", async () => {
      const [first, second, third] = direct as [Caller, Caller, Caller];
      for (let round = 0; round < 12; round++) {
        const content = Buffer.from(`shared bytes ${round} ${uniquePid()}\n`);
        const old = uniquePid(`old-${round}`);
        const renewed = uniquePid(`new-${round}`);
        assert.equal((await create(first, old, content)).status, 200);
        // The last object holding the bytes goes on one process while another stores them again.
        const [deleted, created] = await Promise.all([
          call(second, "DELETE", `/object/${enc(old)}`),
          create(third, renewed, content),
        ]);
        assert.equal(deleted.status, 200, await deleted.clone().text());
        assert.equal(created.status, 200, await created.clone().text());
        for (const c of direct) assert.equal(await bytes(c, renewed), content.toString());
      }
    });

    it("search answers agree across the processes once they heard the same writes", async () => {
      const facetsOf = async (c: Caller) => {
        const params = new URLSearchParams({
          q: "formatId:*",
          rows: "0",
          "facet.field": "formatId",
          wt: "json",
        });
        const body = (await (await call(c, "GET", `/query/solr/?${params}&facet=true`)).json()) as {
          facet_counts: unknown;
        };
        return body.facet_counts;
      };
      // The last writes (the previous test's, on single processes) reach the others within milliseconds.
      const answers = await eventually("the three processes answer alike", async () => {
        const each = await Promise.all(
          direct.map(async (c) => ({ all: await search(c, "*:*"), facets: await facetsOf(c) })),
        );
        const [first, ...rest] = each;
        return rest.every((answer) => JSON.stringify(answer) === JSON.stringify(first)) ? each : undefined;
      });
      assert.ok((answers[0]?.all.numFound ?? 0) > 30);
      // The worker process is still there, serving no requests.
      assert.equal(deployment.workers[0]?.child.exitCode, null);
    });
  });
}
