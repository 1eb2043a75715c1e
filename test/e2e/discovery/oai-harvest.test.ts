/**
 * A real OAI-PMH harvester (Debian's libhttp-oai-perl, `oai_pmh`) harvests 10,000 records (ListIdentifiers: the
 * headers, status included) through resumption tokens while objects are created, archived and removed
 * meanwhile: the harvester is paused (SIGSTOP) after 2,000 records, the changes made, and it goes on. No record is harvested twice, none of the unchanged ones is
 * lost, and an incremental harvest from= the first harvest's start sees every change (deletions included).
 */
import assert from "node:assert/strict";
import { type ChildProcess, spawn } from "node:child_process";
import { after, before, describe, it } from "node:test";
import { bulkLoadObjects } from "../../../src/db/index.ts";
import { formatOaiDate } from "../../../src/oai/dates.ts";
import { type Caller, call, create, enc, okXml } from "../../helpers/clients/client.ts";
import { storedObject } from "../../helpers/data/sysmeta.ts";
import { ADMIN, startTestNode, type TestNode, testDialects } from "../../helpers/nodes/node.ts";
import { eventually } from "../../helpers/time/eventually.ts";

const TOTAL = 10_000;
const PAUSE_AT = 2_000;

interface Harvested {
  identifier: string;
  deleted: boolean;
}

/** Runs oai_pmh ListIdentifiers (oai_dc); `onProgress` sees the count of records printed so far. */
function harvest(
  baseUrl: string,
  from: string | undefined,
  onProgress?: (count: number, child: ChildProcess) => void,
): Promise<Harvested[]> {
  const args = [
    "-X",
    "ListIdentifiers",
    "--metadataPrefix",
    "oai_dc",
    ...(from ? ["--from", from] : []),
    `${baseUrl}/oai`,
  ];
  return new Promise((resolve, reject) => {
    const child = spawn("oai_pmh", args, { stdio: ["ignore", "pipe", "pipe"] });
    let out = "";
    let err = "";
    let printed = 0;
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
      out += chunk;
      printed += chunk.split("\f").length - 1;
      onProgress?.(printed, child);
    });
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => {
      err += chunk;
    });
    child.on("error", reject);
    child.on("close", (code) => {
      if (code !== 0) return reject(new Error(`oai_pmh exited ${code}: ${err}`));
      const records = out
        .split("\f")
        .filter((text) => text.includes("identifier: "))
        .map((text) => ({
          identifier: /^identifier: (.*)$/m.exec(text)?.[1] ?? "",
          deleted: /^status: deleted$/m.test(text),
        }));
      resolve(records);
    });
  });
}

const counts = (records: readonly Harvested[]) => {
  const seen = new Map<string, number>();
  for (const { identifier } of records) seen.set(identifier, (seen.get(identifier) ?? 0) + 1);
  return seen;
};

for (const dialect of testDialects()) {
  describe(`a harvester from Debian harvests while objects change (${dialect})`, () => {
    let node: TestNode;
    let admin: Caller;
    const pid = (i: number) => `harvest-${String(i).padStart(5, "0")}`;
    const original = Array.from({ length: TOTAL }, (_, i) => pid(i));

    before(async () => {
      node = await startTestNode(dialect);
      admin = { baseUrl: node.baseUrl, token: await node.token(ADMIN) };
      // Dated a millisecond apart in the past: every one is in a harvest started now.
      await bulkLoadObjects(
        node.node.ctx.db,
        original.map((id, i) => storedObject(id, { authoritativeMemberNode: "urn:node:TESTMN" }, i)),
      );
    });
    after(() => node?.close());

    it("none lost, none twice, and the changes in the next incremental harvest", async () => {
      const started = Date.now();
      const early = [10, 20, 30, 40, 50].map(pid); // harvested before the pause
      const late = [9_990, 9_980, 9_970, 9_960, 9_950].map(pid); // not yet harvested at the pause
      const [archived, removed] = [
        [...early.slice(0, 3), ...late.slice(0, 3)],
        [...early.slice(3), ...late.slice(3)],
      ];
      const created = Array.from({ length: 20 }, (_, i) => `harvest-new-${i}`);
      let changes: Promise<void> | undefined;
      let changedAt = 0;

      const first = await harvest(node.baseUrl, undefined, (count, child) => {
        if (count < PAUSE_AT || changes) return;
        child.kill("SIGSTOP");
        changes = (async () => {
          for (const id of archived) await okXml(await call(admin, "PUT", `/archive/${enc(id)}`));
          for (const id of removed) await okXml(await call(admin, "DELETE", `/object/${enc(id)}`));
          for (const id of created) await okXml(await create(admin, id, Buffer.from(id)));
          changedAt = Date.now();
          child.kill("SIGCONT");
        })();
      });
      await changes;
      assert.ok(changedAt > 0, "the harvest was paused and the objects changed");

      const seen = counts(first);
      assert.deepEqual(
        [...seen].filter(([, n]) => n > 1),
        [],
        "no record twice",
      );
      const untouched = original.filter((id) => !late.includes(id));
      assert.deepEqual(
        untouched.filter((id) => !seen.has(id)),
        [],
        "no unchanged record lost",
      );
      assert.ok(
        first.every((r) => !r.deleted),
        "nothing was deleted when the harvest began",
      );
      assert.deepEqual(
        late.filter((id) => seen.has(id)),
        [],
        "records changed ahead of the harvest wait for the next one",
      );
      assert.deepEqual(
        created.filter((id) => seen.has(id)),
        [],
        "objects created during the harvest wait for the next one",
      );

      // The incremental harvest, from the first one's start, once the second of the last change has passed.
      await eventually("the second of the last change is over", async () =>
        Date.now() >= Math.floor(changedAt / 1000) * 1000 + 1000 ? true : undefined,
      );
      const next = await harvest(node.baseUrl, formatOaiDate(started));
      const nextSeen = counts(next);
      assert.deepEqual(
        [...nextSeen].filter(([, n]) => n > 1),
        [],
        "no record twice",
      );
      const deleted = new Set(next.filter((r) => r.deleted).map((r) => r.identifier));
      assert.deepEqual(
        [...deleted].sort(),
        [...archived, ...removed].sort(),
        "every archived and removed object is deleted",
      );
      assert.deepEqual([...nextSeen.keys()].sort(), [...archived, ...removed, ...created].sort());

      const union = new Set([...seen.keys(), ...nextSeen.keys()]);
      assert.deepEqual(
        [...original, ...created].filter((id) => !union.has(id)),
        [],
        "none lost across both harvests",
      );
    });
  });
}
