/**
 * Every query of test/fixtures/client-queries.txt (those MetacatUI, d1_cli and the DataONE Python client send)
 * parses and answers 200 with exactly the documents it names, on SQLite and PostgreSQL, through a real Member
 * Node and a real Coordinating Node (d1_cli and MetacatUI search a CN).
 * Each query is asked twice: the second answer comes from the engine's memory, which must agree with SQL.
 */
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { before, describe, it } from "node:test";
import { type Caller, call, create, form, update } from "../../helpers/clients/client.ts";
import { uniquePid } from "../../helpers/data/sysmeta.ts";
import { ADMIN, testDialects, withTestNode } from "../../helpers/nodes/node.ts";

const EML = readFileSync(new URL("../../fixtures/search/eml-2.1.0-peggym.130.4.xml", import.meta.url));
const EML210 = "eml://ecoinformatics.org/eml-2.1.0";
const PORTAL = "https://purl.dataone.org/portals-1.1.0";
const COLLECTION = "https://purl.dataone.org/collections-1.1.0";

interface CorpusQuery {
  client: string;
  q: string;
  expected: string[];
}

function corpus(): CorpusQuery[] {
  return readFileSync(new URL("../../fixtures/client-queries.txt", import.meta.url), "utf8")
    .split("\n")
    .filter((line) => line.trim() !== "" && !line.startsWith("#"))
    .map((line) => {
      const [client = "", q = "", expected = ""] = line.split("\t");
      return { client, q, expected: expected === "-" ? [] : expected.split(",") };
    });
}

const ROLES = ["mn", "cn"] as const;

for (const dialect of testDialects())
  for (const role of ROLES) {
    describe(`queries real clients send (${role}, ${dialect})`, () => {
      const node = withTestNode(dialect, role === "cn" ? { role: "cn", nodeId: "urn:node:TESTCN" } : {});
      let admin: Caller;
      const tag = uniquePid("q").replace(/[^a-z0-9]/gi, "");
      const pids: Record<string, string> = {
        old: `${tag}-old`,
        new: `${tag}-new`,
        data: `${tag}-data`,
        portal: `${tag}-portal`,
        collection: `${tag}-collection`,
      };
      const fill = (text: string) =>
        text.replace(/\{(\w+)\}/g, (_all, name: string) =>
          name === "tag" ? tag : (pids[name] ?? `{${name}}`),
        );

      before(async () => {
        admin = { baseUrl: node.baseUrl, token: await node.token(ADMIN) };
        const ok = async (response: Promise<Response>) => {
          const r = await response;
          assert.equal(r.status, 200, await r.text());
        };
        await ok(create(admin, pids.old as string, EML, { formatId: EML210 }));
        if (role === "mn") {
          await ok(update(admin, pids.old as string, pids.new as string, EML, { formatId: EML210 }));
        } else {
          // A CN has no update: the new version is created and the old one marked (CNCore.setObsoletedBy).
          await ok(
            create(admin, pids.new as string, EML, { formatId: EML210, obsoletes: pids.old as string }),
          );
          const obsoletedBy = form({ obsoletedByPid: pids.new as string, serialVersion: "1" });
          await ok(call(admin, "PUT", `/obsoletedBy/${pids.old}`, { body: obsoletedBy }));
        }
        await ok(create(admin, pids.data as string, Buffer.from("a,b\n1,2\n"), { formatId: "text/csv" }));
        const portal = `<por:portal xmlns:por="${PORTAL}"><label>${tag}p</label><name>Portal</name></por:portal>`;
        await ok(create(admin, pids.portal as string, Buffer.from(portal), { formatId: PORTAL }));
        const collection = `<col:collection xmlns:col="${COLLECTION}"><label>${tag}c</label><name>C</name></col:collection>`;
        await ok(create(admin, pids.collection as string, Buffer.from(collection), { formatId: COLLECTION }));
      });

      for (const { client, q, expected } of corpus()) {
        it(`${client}: ${q}`, async () => {
          const params = new URLSearchParams({
            q: fill(q),
            fq: `id:${tag}*`,
            rows: "100",
            fl: "id",
            wt: "json",
          });
          for (let round = 0; round < 2; round++) {
            const response = await call(admin, "GET", `/query/solr/?${params}`);
            const body = await response.text();
            assert.equal(response.status, 200, body);
            const found = (JSON.parse(body) as { response: { docs: { id: string }[] } }).response.docs
              .map((d) => d.id)
              .sort();
            assert.deepEqual(
              found,
              expected.map((name) => pids[name] as string).sort(),
              `round ${round + 1}`,
            );
          }
        });
      }

      it("an unclosed regular expression or an unsupported operator is InvalidRequest", async () => {
        for (const q of ["formatId:/abc", "id:/a&b/", "id:/~a/", "id:/<1-5>/", "size:/1.*/"]) {
          const response = await call(admin, "GET", `/query/solr/?${new URLSearchParams({ q })}`);
          const body = await response.text();
          assert.equal(response.status, 400, `${q}: ${body}`);
          assert.match(body, /InvalidRequest/);
        }
      });
    });
  }
