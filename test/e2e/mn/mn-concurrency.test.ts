/**
 * Racing writes to one object: "no branching" (two updates of the same object: one wins, the other changes
 * nothing), updateSystemMetadata with the same serialVersion (one wins), and archive racing a change (both land).
 * On PostgreSQL these run in concurrent transactions; on SQLite they queue.
 */
import assert from "node:assert/strict";
import { before, describe, it } from "node:test";
import {
  type Caller,
  call,
  create,
  enc,
  okXml,
  update,
  updateSysmeta,
} from "../../helpers/clients/client.ts";
import { editSysmeta, elementText, uniquePid } from "../../helpers/data/sysmeta.ts";
import { testDialects, withTestNode } from "../../helpers/nodes/node.ts";

const OWNER = "CN=racer,DC=d1node,DC=org";
const RACERS = 6;

for (const dialect of testDialects()) {
  describe(`concurrent writes to one object (${dialect})`, () => {
    const node = withTestNode(dialect);
    let owner: Caller;

    before(async () => {
      owner = { baseUrl: node.baseUrl, token: await node.token(OWNER) };
    });

    const meta = async (pid: string) => okXml(await call(owner, "GET", `/meta/${enc(pid)}`));

    it("updates racing to obsolete the same object: exactly one succeeds, the others leave nothing behind", async () => {
      const pid = uniquePid("race-update");
      await okXml(await create(owner, pid, Buffer.from("v1\n"), { rightsHolder: OWNER }));
      const newPids = Array.from({ length: RACERS }, (_, i) => `${pid}-next-${i}`);
      const responses = await Promise.all(
        newPids.map((next) => update(owner, pid, next, Buffer.from(`${next}\n`), { rightsHolder: OWNER })),
      );
      const won = responses.map((r) => r.status === 200);
      assert.equal(won.filter(Boolean).length, 1, `statuses: ${responses.map((r) => r.status).join(", ")}`);
      const winner = newPids[won.indexOf(true)] as string;
      assert.equal(elementText(await meta(pid), "obsoletedBy"), winner);
      for (const [i, next] of newPids.entries()) {
        const status = (await call(owner, "GET", `/meta/${enc(next)}`)).status;
        assert.equal(status, won[i] ? 200 : 404, `${next} is ${won[i] ? "the winner" : "refused"}`);
      }
    });

    it("updateSystemMetadata calls with the same serialVersion: exactly one succeeds", async () => {
      const pid = uniquePid("race-meta");
      await okXml(await create(owner, pid, Buffer.from("meta\n"), { rightsHolder: OWNER }));
      const current = await meta(pid);
      const serialVersion = Number(elementText(current, "serialVersion"));
      const responses = await Promise.all(
        Array.from({ length: RACERS }, (_, i) =>
          updateSysmeta(owner, pid, editSysmeta(current, { fileName: `name-${i}.txt` })),
        ),
      );
      const statuses = responses.map((r) => r.status);
      assert.equal(statuses.filter((s) => s === 200).length, 1, `statuses: ${statuses.join(", ")}`);
      assert.ok(statuses.every((s) => s === 200 || s === 400));
      const after = await meta(pid);
      assert.equal(Number(elementText(after, "serialVersion")), serialVersion + 1);
      assert.equal(elementText(after, "fileName"), `name-${statuses.indexOf(200)}.txt`);
    });

    it("archive racing an updateSystemMetadata: both take effect", async () => {
      const pid = uniquePid("race-archive");
      await okXml(await create(owner, pid, Buffer.from("archive\n"), { rightsHolder: OWNER }));
      const current = await meta(pid);
      const [archived, changed] = await Promise.all([
        call(owner, "PUT", `/archive/${enc(pid)}`),
        updateSysmeta(owner, pid, editSysmeta(current, { fileName: "renamed.txt" })),
      ]);
      assert.equal(archived.status, 200);
      const after = await meta(pid);
      assert.equal(elementText(after, "archived"), "true");
      // The change either landed first (then archive built on it) or lost to the archive with a clear refusal.
      if (changed.status === 200) assert.equal(elementText(after, "fileName"), "renamed.txt");
      else assert.equal(changed.status, 400);
    });
  });
}
