/**
 * A new version introducing SID S (MNStorage.update of A) racing MNStorage.updateSystemMetadata adding S to A
 * itself, in both start orders. Both write A's row and S's identifiers row; in opposite orders they could
 * deadlock on PostgreSQL (40P01), which a caller would see as ServiceFailure. 50 rounds per order: every call
 * succeeds or gets the refusal the API names, never ServiceFailure, and the series is one chain.
 */
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { Readable } from "node:stream";
import { before, describe, it } from "node:test";
import type { Session } from "../../../src/auth/session.ts";
import type { CallInfo, NodeContext } from "../../../src/context/node-context.ts";
import type { Database } from "../../../src/db/types.ts";
import { D1Error } from "../../../src/errors/exceptions.ts";
import * as mnStorage from "../../../src/services/mn/storage.ts";
import { updateSystemMetadata } from "../../../src/services/mn/sysmeta-update.ts";
import { findByPidOrSid } from "../../../src/services/shared/resolve.ts";
import type { SystemMetadata } from "../../../src/types/sysmeta.ts";
import { storedObject, uniquePid } from "../../helpers/data/sysmeta.ts";
import { forEachDialect } from "../../helpers/db/databases.ts";
import { contextOver } from "../../helpers/nodes/federation-context.ts";

const ROUNDS = 50;
const ADMIN = "CN=series-update-racer,DC=d1node,DC=org";
const session: Session = {
  subject: ADMIN,
  subjects: new Set([ADMIN]),
  authenticated: true,
  isAdmin: true,
  isCn: false,
};
const call: CallInfo = { session, ipAddress: "127.0.0.1", userAgent: "series-update-race" };

type Outcome = { ok: true } | { ok: false; exception: string; description: string };

async function outcome(work: Promise<unknown>): Promise<Outcome> {
  try {
    await work;
    return { ok: true };
  } catch (error) {
    if (!(error instanceof D1Error)) throw error;
    return { ok: false, exception: error.exception, description: error.description };
  }
}

forEachDialect((_name, open) => {
  describe("update introducing a SID racing updateSystemMetadata adding it to the obsoleted object", () => {
    let db: Database;
    let ctx: NodeContext;
    before(async () => {
      db = await open();
    });

    const bytesOf = (pid: string) => Buffer.from(`bytes of ${pid}\n`);
    const newVersion = (old: string, pid: string, sid: string): SystemMetadata => {
      const bytes = bytesOf(pid);
      const { sysmeta } = storedObject(pid, {
        size: bytes.length,
        checksum: { algorithm: "SHA-256", value: createHash("sha256").update(bytes).digest("hex") },
        seriesId: sid,
        obsoletes: old,
      });
      return { ...sysmeta, obsoletedBy: undefined };
    };

    for (const updateFirst of [true, false]) {
      it(`${updateFirst ? "update" : "updateSystemMetadata"} started first: no ServiceFailure, one chain`, async () => {
        ctx = await contextOver(db, { submitters: [ADMIN] });
        const seen = { both: 0, updateOnly: 0, sysmetaOnly: 0 };
        for (let round = 0; round < ROUNDS; round++) {
          const sid = uniquePid("sid-u");
          const a = `${sid}-a`;
          const b = `${sid}-b`;
          await db.objects.insertMany([storedObject(a)]);
          const current = (await db.objects.get(a))?.sysmeta as SystemMetadata;
          const staged = await ctx.store.stage(Readable.from([bytesOf(b)]), { algorithm: "SHA-256" });
          const updating = () => outcome(mnStorage.update(ctx, call, a, b, newVersion(a, b, sid), staged));
          const adding = () => outcome(updateSystemMetadata(ctx, call, a, { ...current, seriesId: sid }));
          const [updated, added] = updateFirst
            ? await Promise.all([updating(), adding()])
            : await Promise.all([adding(), updating()]).then(([x, y]) => [y, x] as const);
          // The update refused: the SID is taken (by A, after its check read A). updateSystemMetadata refused: A
          // changed under it (the update obsoleted it), "read the system metadata again".
          if (!updated.ok)
            assert.equal(
              updated.exception,
              "InvalidSystemMetadata",
              `round ${round}: ${updated.description}`,
            );
          if (!added.ok)
            assert.equal(added.exception, "InvalidRequest", `round ${round}: ${added.description}`);
          assert.ok(updated.ok || added.ok, `round ${round}: one of them succeeds`);
          const stored = (await db.objects.get(a))?.sysmeta;
          if (updated.ok) {
            assert.equal(stored?.obsoletedBy, b);
            assert.equal(await db.objects.headOfSeries(sid), b);
            assert.equal((await findByPidOrSid(ctx, sid)).sysmeta.identifier, b);
            assert.deepEqual(await db.objects.pidsOfSeries(sid), added.ok ? [a, b] : [b]);
          } else {
            assert.equal(stored?.obsoletedBy, undefined);
            assert.equal(await db.objects.get(b), undefined);
            assert.deepEqual(await db.objects.pidsOfSeries(sid), [a]);
            assert.equal(await db.objects.headOfSeries(sid), a);
          }
          assert.equal(stored?.seriesId, added.ok ? sid : undefined);
          if (updated.ok && added.ok) seen.both++;
          else if (updated.ok) seen.updateOnly++;
          else seen.sysmetaOnly++;
        }
        // Which orders the rounds ended in (for the record; the database decides).
        assert.equal(seen.both + seen.updateOnly + seen.sysmetaOnly, ROUNDS);
      });
    }
  });
});
