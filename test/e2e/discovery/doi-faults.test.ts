/**
 * DataCite's faults never fail or delay a write, and lose no registration: DataCite not answering, slow, 429 with
 * Retry-After, 5xx, in the middle of a run; a node stopped with registrations pending registers each DOI once
 * after its restart.
 */
import assert from "node:assert/strict";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { loadOrCreateSigningKey } from "../../../src/auth/keys.ts";
import { mintToken } from "../../../src/auth/tokens.ts";
import { resolveConfig } from "../../../src/config/config.ts";
import { startNode } from "../../../src/node/start.ts";
import { type Caller, create, okXml } from "../../helpers/clients/client.ts";
import { createTestPostgresDatabase } from "../../helpers/db/postgres.ts";
import { ADMIN, startTestNode, type TestNode, testDialects } from "../../helpers/nodes/node.ts";
import { type DataciteFake, type Outage, startDataciteFake } from "../../helpers/peers/datacite-fake.ts";
import { dataciteSettings, EML, emlDocument, generateDoi } from "../../helpers/peers/datacite-node.ts";
import { eventually } from "../../helpers/time/eventually.ts";

const bare = (doi: string) => doi.replace(/^doi:/, "").toLowerCase();

for (const dialect of testDialects()) {
  describe(`DataCite faults (${dialect})`, () => {
    let fake: DataciteFake;
    let node: TestNode;
    let owner: Caller;

    before(async () => {
      fake = await startDataciteFake();
      node = await startTestNode(dialect, await dataciteSettings(fake));
      owner = { baseUrl: node.baseUrl, token: await node.token("CN=tester") };
    });
    after(async () => {
      await node.close();
      await fake.close();
    });

    const outages: [string, Outage][] = [
      ["no answer", { kind: "down" }],
      ["a slow answer", { kind: "slow" }],
      ["429 with Retry-After", { kind: "status", status: 429, retryAfter: 1 }],
      ["503", { kind: "status", status: 503 }],
    ];
    for (const [name, outage] of outages) {
      it(`${name}: the create succeeds at once; the DOI is findable once DataCite is back`, async () => {
        const refusedBefore = fake.refused;
        fake.outage(outage);
        const doi = await generateDoi(owner);
        // The write answers while DataCite is away (a slow DataCite holds its request open meanwhile).
        await okXml(await create(owner, doi, emlDocument(`During ${name}`), { formatId: EML }));
        await eventually("DataCite tried", async () => (fake.refused > refusedBefore ? true : undefined));
        const status = await fetch(`${node.baseUrl}/status`, {
          headers: { Authorization: `Bearer ${await node.token(ADMIN)}` },
        });
        assert.match(await status.text(), /doi-registration/);
        fake.outage(undefined);
        const held = await eventually("findable", async () =>
          fake.get(bare(doi))?.state === "findable" ? fake.get(bare(doi)) : undefined,
        );
        assert.deepEqual(held.events, ["publish"]);
      });
    }
  });

  describe(`DataCite registrations pending across a restart (${dialect})`, () => {
    let fake: DataciteFake;
    let dataDir: string;
    let drop: (() => Promise<void>) | undefined;

    before(async () => {
      fake = await startDataciteFake();
      dataDir = await mkdtemp(path.join(tmpdir(), "d1node-doi-restart-"));
    });
    after(async () => {
      await fake.close();
      await drop?.();
      await rm(dataDir, { recursive: true, force: true });
    });

    it("registers each DOI exactly once after the restart", async () => {
      const pg = dialect === "postgres" ? await createTestPostgresDatabase() : undefined;
      drop = pg?.drop;
      const config = resolveConfig({
        port: 0,
        dataDir,
        nodeId: "urn:node:TESTMN",
        adminSubjects: [ADMIN],
        logLevel: "warn",
        ...(pg ? { databaseUrl: pg.url } : {}),
        ...(await dataciteSettings(fake)),
      });
      fake.outage({ kind: "down" });
      const first = await startNode(config, { logLevel: false });
      const { privateKey } = loadOrCreateSigningKey(dataDir);
      const owner = { baseUrl: first.baseUrl, token: await mintToken(privateKey, { subject: "CN=tester" }) };
      const dois = [await generateDoi(owner), await generateDoi(owner)];
      for (const doi of dois) await okXml(await create(owner, doi, emlDocument(doi), { formatId: EML }));
      await eventually("DataCite tried", async () => (fake.refused >= 1 ? true : undefined));
      await first.close();

      fake.outage(undefined);
      const second = await startNode(config, { logLevel: false });
      try {
        for (const doi of dois) {
          await eventually(`${doi} findable`, async () =>
            fake.get(bare(doi))?.state === "findable" ? true : undefined,
          );
        }
        await eventually("queue drained", async () => {
          const pending = await second.ctx.tasks.pending();
          return (pending["doi-registration"] ?? 0) === 0 ? true : undefined;
        });
        for (const doi of dois) {
          assert.equal(fake.get(bare(doi))?.puts, 1, `${doi} sent once`);
          assert.deepEqual(fake.get(bare(doi))?.events, ["publish"]);
        }
      } finally {
        await second.close();
      }
    });
  });
}
