/**
 * The one place an import writes to the node: a copied object (bytes staged and checked, then made visible as
 * every upload is: blob intent, rename into the store, one transaction inserting the row and clearing the intent)
 * or new system metadata for an object copied before. The record is kept as the source has it (identifier, SID,
 * obsolescence links, policies, subjects, dates, origin and authoritative node, replicas): nothing is filled in.
 * A crash at any point leaves the old state or the new one; bytes nothing references are collected at start-up.
 */
import { InvalidSystemMetadata } from "../errors/exceptions.ts";
import type { ChangeSubscribers } from "../objects/changes.ts";
import type { ObjectWriteContext } from "../objects/context.ts";
import { type ObjectTransaction, writeObjects } from "../objects/write.ts";
import { digestForAlgorithm, type StagedObject } from "../store/index.ts";
import type { Digests, StoredObject } from "../types/stored-object.ts";
import type { SystemMetadata } from "../types/sysmeta.ts";

/** The write core's context (src/objects): its `changes` say what follows an imported write (see src/cli/folder-commands/import.ts). */
export type WriteContext = ObjectWriteContext;

export type ImportedWrite =
  /** A new object: its staged bytes (checked against the sysmeta here) and its record. */
  | { kind: "object"; staged: StagedObject; sysmeta: SystemMetadata; isReplica: boolean }
  /** An object held already, whose system metadata the source changed since. */
  | { kind: "sysmeta"; sysmeta: SystemMetadata };

/** Notes in the write's transaction that the import from `source` wrote this record (`import_copies`). */
const noteCopy = (tx: ObjectTransaction, source: string, sysmeta: SystemMetadata) =>
  tx.importProgress.recordCopy(source, sysmeta.identifier, sysmeta.dateSysMetadataModified ?? new Date(0));

/**
 * Writes one imported change from `source` (its base URL), noted as that source's copy in the same transaction: a
 * run killed after the write still knows the import wrote it. A new object's PID already held is a
 * DuplicateKeyError, a SID that another chain holds a SeriesConflictError (from the database layer); bytes that
 * differ from the sysmeta InvalidSystemMetadata.
 */
export async function writeImported(ctx: WriteContext, source: string, write: ImportedWrite): Promise<void> {
  if (write.kind === "sysmeta") {
    await writeObjects(ctx, "import", async (tx) => {
      await tx.objects.replaceSysmeta(write.sysmeta);
      await noteCopy(tx, source, write.sysmeta);
    });
    return;
  }
  const { staged, sysmeta, isReplica } = write;
  checkBytes(sysmeta, staged.digests);
  const key = staged.key;
  const object: StoredObject = { sysmeta, contentKey: key, digests: staged.digests, isReplica };
  await ctx.contentLocks.run(key, async () => {
    await ctx.db.blobIntents.add(key);
    try {
      await staged.commit();
      await writeObjects(ctx, "import", async (tx) => {
        await tx.objects.insert(object);
        await tx.blobIntents.remove(key);
        await noteCopy(tx, source, sysmeta);
      });
    } catch (error) {
      await staged.discard();
      if ((await ctx.db.objects.countByContentKey(key)) === 0) await ctx.store.remove(key);
      await ctx.db.blobIntents.remove(key);
      throw error;
    }
  });
}

/** The bytes received must be the ones the source's system metadata describes (size and checksum). */
function checkBytes(sysmeta: SystemMetadata, digests: Digests): void {
  const pid = sysmeta.identifier;
  if (sysmeta.size !== digests.size) {
    throw new InvalidSystemMetadata(
      `The source's system metadata gives size ${sysmeta.size} but ${digests.size} bytes were received.`,
      { pid },
    );
  }
  const { algorithm, value } = sysmeta.checksum;
  const actual = digestForAlgorithm(digests, algorithm);
  if (actual === undefined)
    throw new InvalidSystemMetadata(`Checksum algorithm "${algorithm}" is not supported.`, { pid });
  if (actual !== value.toLowerCase()) {
    throw new InvalidSystemMetadata(
      `The ${algorithm} checksum of the received bytes is ${actual}, not ${value} as the source declares.`,
      { pid },
    );
  }
}

/**
 * What follows an imported write: nothing. The copies are the source's objects, which its Coordinating Node knows
 * already (no notice, no announcement, no replica planning), and the run indexes them in batches itself.
 */
export const IMPORT_FOLLOWS_NOTHING: ChangeSubscribers = {
  recorded: async () => undefined,
  committed: async () => undefined,
};
