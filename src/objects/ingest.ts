/**
 * Making staged bytes visible: compare them with the declared size and checksum, move them into the store and
 * commit the row, so that a crash at any point leaves the old state or the new one.
 *   1. the key is recorded as a blob intent (committed), 2. the bytes are renamed into place,
 *   3. one transaction inserts the row(s) and clears the intent. Start-up recovery removes the bytes of any
 *   intent that no row references.
 */
import { DuplicateKeyError } from "../db/errors.ts";
import type { NewLogEntry } from "../db/types.ts";
import { IdentifierNotUnique, InvalidSystemMetadata } from "../errors/exceptions.ts";
import { digestForAlgorithm } from "../store/index.ts";
import type { StagedObject } from "../store/types.ts";
import type { Digests, StoredObject } from "../types/stored-object.ts";
import type { SystemMetadata } from "../types/sysmeta.ts";
import type { ChangeOrigin } from "./changes.ts";
import type { ObjectWriteContext } from "./context.ts";
import { asSeriesRefusal } from "./series-refusal.ts";
import { type ObjectTransaction, writeObjects } from "./write.ts";

/** "sysmeta checksum does not match the bytes -> InvalidSystemMetadata" (and the size likewise). */
export function checkDigests(sysmeta: SystemMetadata, digests: Digests): void {
  if (sysmeta.size !== digests.size) {
    throw new InvalidSystemMetadata(
      `The system metadata gives size ${sysmeta.size} but ${digests.size} bytes were received.`,
      { pid: sysmeta.identifier },
    );
  }
  const actual = digestForAlgorithm(digests, sysmeta.checksum.algorithm);
  if (actual === undefined) {
    throw new InvalidSystemMetadata(`Checksum algorithm "${sysmeta.checksum.algorithm}" is not supported.`, {
      pid: sysmeta.identifier,
    });
  }
  if (actual !== sysmeta.checksum.value.toLowerCase()) {
    throw new InvalidSystemMetadata(
      `The ${sysmeta.checksum.algorithm} checksum of the received bytes is ${actual}, ` +
        `not ${sysmeta.checksum.value} as the system metadata declares.`,
      { pid: sysmeta.identifier },
    );
  }
}

/**
 * Commit staged bytes and run `write` (which inserts rows) in one object write (src/objects/write.ts). On
 * failure the bytes are removed again unless another object references them.
 */
export async function ingest(
  ctx: ObjectWriteContext,
  origin: ChangeOrigin,
  staged: StagedObject,
  write: (tx: ObjectTransaction, contentKey: string) => Promise<void>,
): Promise<void> {
  // Said to have ended by writeObjects right after its transaction, or here at the latest.
  const ended = ctx.changes.starting?.();
  try {
    await committedUnderLock(ctx, origin, staged, write, ended);
  } finally {
    ended?.();
  }
}

/** The steps above, under the content key's lock. */
async function committedUnderLock(
  ctx: ObjectWriteContext,
  origin: ChangeOrigin,
  staged: StagedObject,
  write: (tx: ObjectTransaction, contentKey: string) => Promise<void>,
  ended: (() => void) | undefined,
): Promise<void> {
  const key = staged.key;
  await ctx.contentLocks.run(key, async () => {
    await ctx.db.blobIntents.add(key);
    try {
      await staged.commit();
      // Bytes kept while staging go to what follows the commit (the search index) with the new rows.
      const held = staged.held && { contentKey: key, bytes: staged.held };
      await writeObjects(
        ctx,
        origin,
        async (tx) => {
          await write(tx, key);
          await tx.blobIntents.remove(key);
        },
        held,
        ended,
      );
    } catch (error) {
      await staged.discard();
      if ((await ctx.db.objects.countByContentKey(key)) === 0) await ctx.store.remove(key);
      await ctx.db.blobIntents.remove(key);
      if (error instanceof DuplicateKeyError) {
        throw new IdentifierNotUnique(`The identifier is already in use on this node.`);
      }
      throw asSeriesRefusal(error);
    }
  });
}

/** Remove an object's row (recording `event` in the same transaction), then its bytes when no other object shares them. */
export async function removeObject(
  ctx: ObjectWriteContext,
  origin: ChangeOrigin,
  object: StoredObject,
  event?: NewLogEntry,
): Promise<void> {
  const key = object.contentKey;
  await ctx.contentLocks.run(key, async () => {
    let orphaned = false;
    await writeObjects(ctx, origin, async (tx) => {
      await tx.objects.remove(object.sysmeta.identifier);
      if (event) await tx.events.add(event);
      orphaned = (await tx.objects.countByContentKey(key)) === 0;
      if (orphaned) await tx.blobIntents.add(key);
    });
    if (orphaned) {
      await ctx.store.remove(key);
      await ctx.db.blobIntents.remove(key);
    }
  });
}

/** Start-up recovery: bytes of unfinished writes that no object references are removed; temp files too. */
export async function recoverStore(ctx: ObjectWriteContext): Promise<{ orphans: number; temps: number }> {
  const temps = await ctx.store.sweepTemp();
  let orphans = 0;
  for (const key of await ctx.db.blobIntents.list()) {
    // Another process sharing the database may be committing these bytes right now: its intent is listed
    // while it holds the key, so the count is read once it has let go.
    await ctx.contentLocks.run(key, async () => {
      if ((await ctx.db.objects.countByContentKey(key)) === 0) {
        await ctx.store.remove(key);
        orphans++;
      }
      await ctx.db.blobIntents.remove(key);
    });
  }
  return { orphans, temps };
}
