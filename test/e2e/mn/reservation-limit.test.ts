/**
 * A lone Member Node's `cn/v2/reserve` holds at most `reservationMaxOpen` identifiers reserved and not yet used
 * per subject, on both databases: one more is NotAuthorized (CNCore.reserveIdentifier's refusal, 4180, an XSD-valid
 * exception document); another subject is not held back; using a reserved identifier makes room; administrators
 * are not limited.
 */
import assert from "node:assert/strict";
import { before, describe, it } from "node:test";
import { checkedError, create, form, okXml } from "../../helpers/clients/client.ts";
import { uniquePid } from "../../helpers/data/sysmeta.ts";
import { ADMIN, testDialects, withTestNode } from "../../helpers/nodes/node.ts";

const ALICE = "http://orcid.org/0000-0002-1825-0097";
const BOB = "http://orcid.org/0000-0001-5109-3700";
const LIMIT = 3;

for (const dialect of testDialects()) {
  describe(`reservations per subject on a lone Member Node (${dialect})`, () => {
    const node = withTestNode(dialect, { reservationMaxOpen: LIMIT });
    const tokens: Record<string, string> = {};
    before(async () => {
      for (const subject of [ALICE, BOB, ADMIN]) tokens[subject] = await node.token(subject);
    });
    const reserve = (subject: string, pid: string) =>
      fetch(`${node.baseUrl}/cn/v2/reserve`, {
        method: "POST",
        headers: { authorization: `Bearer ${tokens[subject]}` },
        body: form({ pid }),
      });

    it("refuses one reservation more than the limit with NotAuthorized, until one is used", async () => {
      const held = [];
      for (let i = 0; i < LIMIT; i++) {
        const pid = uniquePid("held");
        await okXml(await reserve(ALICE, pid));
        held.push(pid);
      }
      const over = await checkedError(await reserve(ALICE, uniquePid("over")));
      assert.deepEqual([over.status, over.name, over.detailCode], [401, "NotAuthorized", "4180"]);
      assert.match(over.body, /3 reserved identifiers not yet used/);
      // By the path form too.
      const byPath = await fetch(`${node.baseUrl}/cn/v2/reserve/${encodeURIComponent(uniquePid("path"))}`, {
        method: "POST",
        headers: { authorization: `Bearer ${tokens[ALICE]}` },
      });
      assert.equal((await checkedError(byPath)).name, "NotAuthorized");

      // Another subject has room of its own.
      await okXml(await reserve(BOB, uniquePid("bob")));

      // Using a reserved identifier frees its place; the next one fills it.
      const used = await create(
        { baseUrl: node.baseUrl, token: tokens[ALICE] },
        held[0] as string,
        Buffer.from("x\n"),
      );
      await okXml(used);
      await okXml(await reserve(ALICE, uniquePid("after-use")));
      assert.equal((await checkedError(await reserve(ALICE, uniquePid("over-again")))).name, "NotAuthorized");
    });

    it("does not limit administrators", async () => {
      for (let i = 0; i <= LIMIT + 1; i++) await okXml(await reserve(ADMIN, uniquePid("admin")));
    });
  });
}
