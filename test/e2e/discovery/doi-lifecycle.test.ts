/**
 * DOIs with DataCite, against the DataCite fake: generateIdentifier(DOI) -> create -> publish (as MetacatUI calls
 * it) -> access change -> new version -> archive -> delete of a draft, on both databases; DataCite refusing a
 * record (422: a dead task with DataCite's errors, not retried).
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { parseDatacite } from "../../../src/doi/datacite/index.ts";
import {
  type Caller,
  call,
  create,
  enc,
  errorOf,
  okXml,
  update,
  updateSysmeta,
} from "../../helpers/clients/client.ts";
import { RESOURCE_MAP_FORMAT, resourceMapXml } from "../../helpers/data/resource-map.ts";
import { ADMIN, startTestNode, type TestNode, testDialects } from "../../helpers/nodes/node.ts";
import { type DataciteFake, startDataciteFake } from "../../helpers/peers/datacite-fake.ts";
import { dataciteSettings, EML, emlDocument, generateDoi } from "../../helpers/peers/datacite-node.ts";
import { eventually } from "../../helpers/time/eventually.ts";
import { validateDatacite } from "../../helpers/validation/datacite-xsd.ts";

const OWNER = "CN=tester";

const relation = (xml: string, type: string) =>
  parseDatacite(xml)
    .relatedIdentifiers.filter((r) => r.relationType === type)
    .map((r) => r.value);

const bare = (doi: string) => doi.replace(/^doi:/, "").toLowerCase();

for (const dialect of testDialects()) {
  describe(`DOIs with DataCite (${dialect})`, () => {
    let fake: DataciteFake;
    let node: TestNode;
    let owner: Caller;

    before(async () => {
      fake = await startDataciteFake();
      node = await startTestNode(dialect, await dataciteSettings(fake));
      owner = { baseUrl: node.baseUrl, token: await node.token(OWNER) };
    });
    after(async () => {
      await node.close();
      await fake.close();
    });

    const findable = (doi: string, check: (xml: string) => boolean = () => true) =>
      eventually(`${doi} findable at DataCite`, async () => {
        const held = fake.get(bare(doi));
        return held?.state === "findable" && check(held.xml) ? held : undefined;
      });

    it("generate, create, publish as MetacatUI does, change access, new version, archive", async () => {
      // generateIdentifier(DOI): a DOI under the prefix, reserved, not yet at DataCite.
      const doi = await generateDoi(owner);
      assert.match(doi, /^doi:10\.5072\/[0-9a-z]{4}-[0-9a-z]{4}$/);
      assert.equal(fake.get(bare(doi)), undefined);
      // Someone else may not take it.
      const other = { baseUrl: node.baseUrl, token: await node.token("CN=someone else") };
      const taken = await errorOf(await create(other, doi, emlDocument("Not mine"), { formatId: EML }));
      assert.equal(taken.name, "NotAuthorized", taken.body);

      // A package: data, its EML under the DOI, a resource map.
      const data = `urn:uuid:${crypto.randomUUID()}`;
      await okXml(await create(owner, data, Buffer.from("t,c\n1,2\n"), { fileName: "temps.csv" }));
      await okXml(await create(owner, doi, emlDocument("Lake Ontiki temperatures"), { formatId: EML }));
      const map = `resource_map_${crypto.randomUUID()}`;
      await okXml(
        await create(owner, map, Buffer.from(resourceMapXml(map, doi, [data])), {
          formatId: RESOURCE_MAP_FORMAT,
        }),
      );
      const first = await findable(doi, (xml) => relation(xml, "IsPartOf").length === 1);
      assert.equal(first.url, `${node.baseUrl}/v2/views/default/${encodeURIComponent(doi)}`);
      await validateDatacite(first.xml);
      const record = parseDatacite(first.xml);
      assert.equal(record.titles[0]?.title, "Lake Ontiki temperatures");
      assert.equal(record.creators[0]?.nameIdentifiers[0]?.value, "https://orcid.org/0000-0002-1825-0097");
      assert.equal(record.publicationYear, "2025");
      assert.equal(relation(first.xml, "Describes").length, 1);

      // MetacatUI: PUT {mn}/v2/publish/{pid}, credentials, no body; the answer names the new DOI.
      const answer = await fetch(`${node.baseUrl}/v2/publish/${encodeURIComponent(doi)}`, {
        method: "PUT",
        headers: { Authorization: `Bearer ${owner.token}`, "X-Requested-With": "XMLHttpRequest" },
      });
      const identifierXml = await okXml(answer);
      const published = /<(?:\w+:)?identifier[^>]*>([^<]+)</.exec(identifierXml)?.[1] ?? "";
      assert.match(published, /^doi:10\.5072\//);
      const second = await findable(published, (xml) => relation(xml, "IsPartOf").length === 1);
      assert.deepEqual(relation(second.xml, "IsNewVersionOf"), [doi.replace(/^doi:/, "")]);
      await findable(doi, (xml) => relation(xml, "IsPreviousVersionOf").length === 1);
      // The package followed: a new resource map naming the DOI.
      const newMap = await (await call(owner, "GET", `/object/${enc(`resource_map_${published}`)}`)).text();
      assert.ok(newMap.includes(encodeURIComponent(published)), newMap);
      const eml = await (await call(owner, "GET", `/object/${enc(published)}`)).text();
      assert.ok(eml.includes(`packageId="${published}"`), eml);

      // Private: hidden (registered), never findable; public again: findable again.
      const sysmeta = await (await call(owner, "GET", `/meta/${enc(published)}`)).text();
      const privately = sysmeta.replace(/<accessPolicy>[\s\S]*<\/accessPolicy>/, "");
      assert.equal((await updateSysmeta(owner, published, privately)).status, 200);
      await eventually("hidden", async () =>
        fake.get(bare(published))?.state === "registered" ? true : undefined,
      );
      assert.ok(fake.get(bare(published))?.events.includes("hide"));
      const current = await (await call(owner, "GET", `/meta/${enc(published)}`)).text();
      const open = current.replace(
        "</rightsHolder>",
        "</rightsHolder><accessPolicy><allow><subject>public</subject><permission>read</permission></allow></accessPolicy>",
      );
      assert.equal((await updateSysmeta(owner, published, open)).status, 200);
      await findable(published, () => fake.get(bare(published))?.events.at(-1) === "publish");

      // A new version with a DOI of its own (no concept DOI: the versions link to each other).
      const third = await generateDoi(owner);
      await okXml(
        await update(owner, published, third, emlDocument("Lake Ontiki temperatures, v3"), { formatId: EML }),
      );
      const thirdHeld = await findable(third);
      assert.deepEqual(relation(thirdHeld.xml, "IsNewVersionOf"), [published.replace(/^doi:/, "")]);

      // Archived: still findable, resolving to its landing page; the record says it is withdrawn.
      assert.equal((await call(owner, "PUT", `/archive/${enc(third)}`)).status, 200);
      await findable(third, (xml) => parseDatacite(xml).dates.some((d) => d.dateType === "Withdrawn"));
      const landing = await fetch(`${node.baseUrl}/v2/views/default/${encodeURIComponent(third)}`);
      assert.equal(landing.status, 200);
    });

    it("a private object's DOI stays a draft, and the draft goes with its object", async () => {
      const doi = await generateDoi(owner);
      await okXml(await create(owner, doi, emlDocument("Private"), { formatId: EML, readers: [OWNER] }));
      await eventually("draft", async () => (fake.get(bare(doi))?.state === "draft" ? true : undefined));
      const admin = { baseUrl: node.baseUrl, token: await node.token(ADMIN) };
      assert.equal((await call(admin, "DELETE", `/object/${enc(doi)}`)).status, 200);
      await eventually("draft deleted", async () => (fake.get(bare(doi)) === undefined ? true : undefined));
    });

    it("publish: NotAuthorized without write permission; InvalidRequest for data", async () => {
      const doi = await generateDoi(owner);
      await okXml(await create(owner, doi, emlDocument("Not yours"), { formatId: EML }));
      const stranger = { baseUrl: node.baseUrl, token: await node.token("CN=stranger") };
      const refused = await errorOf(await call(stranger, "PUT", `/publish/${enc(doi)}`));
      assert.equal(refused.name, "NotAuthorized", refused.body);
      const data = `urn:uuid:${crypto.randomUUID()}`;
      await okXml(await create(owner, data, Buffer.from("x\n")));
      const notMetadata = await errorOf(await call(owner, "PUT", `/publish/${enc(data)}`));
      assert.equal(notMetadata.name, "InvalidRequest", notMetadata.body);
    });

    it("a record DataCite refuses (422) is kept as a dead task with DataCite's errors, not retried", async () => {
      fake.rejectRecords = true;
      try {
        const doi = await generateDoi(owner);
        await okXml(await create(owner, doi, emlDocument("Refused"), { formatId: EML }));
        const dead = await eventually("dead task", async () =>
          (await node.node.ctx.tasks.dead()).find((t) => t.key === doi),
        );
        assert.match(dead.lastError, /422/);
        assert.match(dead.lastError, /refused by the fake.s own checks/);
        const puts = fake.calls.filter((c) => c.doi === bare(doi) && c.method === "PUT").length;
        assert.equal(puts, 1);
        const metrics = await (
          await fetch(`${node.baseUrl}/metrics`, {
            headers: { Authorization: `Bearer ${await node.token(ADMIN)}` },
          })
        ).text();
        const line = metrics
          .split("\n")
          .find(
            (l) => l.startsWith("d1node_tasks{") && l.includes('"doi-registration"') && l.includes('"dead"'),
          );
        assert.match(line ?? metrics, / 1$/);
        const status = await fetch(`${node.baseUrl}/status`, {
          headers: { Authorization: `Bearer ${await node.token(ADMIN)}` },
        });
        assert.match(await status.text(), /refused by the fake/);
      } finally {
        fake.rejectRecords = false;
      }
    });
  });
}
