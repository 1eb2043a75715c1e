/**
 * The one way an object changes: `writeObjects` runs a transaction whose object repository records every insert,
 * system metadata replacement and removal as an `ObjectChange`. Before the commit the subscribers enqueue what
 * must follow durably (notify the CN, announce to holders, plan replicas: rows of the task table, committed with
 * the change or not at all); after it, they index the change inline, so the caller reads its own write in search.
 */
import type { ObjectRepository, TransactionRepositories } from "../db/types.ts";
import type { StoredObject } from "../types/stored-object.ts";
import type { SystemMetadata } from "../types/sysmeta.ts";
import type { ChangeOrigin, ObjectChange } from "./changes.ts";
import type { ObjectWriteContext } from "./context.ts";

/** A write's transaction: its repositories record changes; `replan` asks for the object's replicas to be planned. */
export interface ObjectTransaction extends TransactionRepositories {
  /** The object's replication policy or replica list calls for planning its replicas again (a CN's concern). */
  replan(pid: string): void;
}

/**
 * Run `work` in one transaction, every change it makes to an object recorded and followed up (see above).
 * `origin` says who asked for the change; `ended` (from `ChangeSubscribers.starting`) is called once the transaction
 * has ended, committed or not.
 */
export async function writeObjects<T>(
  ctx: ObjectWriteContext,
  origin: ChangeOrigin,
  work: (tx: ObjectTransaction) => Promise<T>,
  held?: HeldBytes,
  ended?: () => void,
): Promise<T> {
  let changes: ObjectChange[] = [];
  let result: T;
  try {
    result = await ctx.db.transaction(async (tx) => {
      changes = [];
      const replanned = new Set<string>();
      const recorded: ObjectTransaction = {
        ...tx,
        objects: recording(tx.objects, origin, changes, held),
        replan: (pid) => replanned.add(pid),
      };
      const value = await work(recorded);
      for (const change of changes) {
        if (change.kind !== "removed" && replanned.has(pidOf(change))) change.replan = true;
      }
      await ctx.changes.recorded(tx, changes);
      return value;
    });
  } finally {
    // Called at once, with no await before the crash point below (a promise's finally would add turns of the
    // microtask queue, in which the task worker, woken by the commit, could lease a task the crash then holds).
    ended?.();
  }
  crashPointAfterCommit();
  await ctx.changes.committed(changes);
  return result;
}

const pidOf = (change: Exclude<ObjectChange, { kind: "removed" }>) =>
  change.kind === "created" ? change.object.sysmeta.identifier : change.sysmeta.identifier;

/** Bytes a write has in memory (src/objects/held-bytes.ts): those of the objects it creates with this key. */
export interface HeldBytes {
  contentKey: string;
  bytes: Buffer;
}

/** The transaction's object repository, noting each write in `changes` once it succeeded. */
function recording(
  objects: ObjectRepository,
  origin: ChangeOrigin,
  changes: ObjectChange[],
  held: HeldBytes | undefined,
): ObjectRepository {
  const created = (object: StoredObject): ObjectChange => ({
    kind: "created",
    object,
    ...(held?.contentKey === object.contentKey ? { bytes: held.bytes } : {}),
    origin,
    replan: false,
  });
  return {
    ...objects,
    async insert(object) {
      await objects.insert(object);
      changes.push(created(object));
    },
    async insertMany(many) {
      await objects.insertMany(many);
      for (const object of many) changes.push(created(object));
    },
    async replaceSysmeta(sysmeta: SystemMetadata, expectedSerialVersion?: number) {
      await objects.replaceSysmeta(sysmeta, expectedSerialVersion);
      changes.push({ kind: "sysmeta", sysmeta, origin, replan: false });
    },
    async remove(pid) {
      await objects.remove(pid);
      changes.push({ kind: "removed", pid, origin, replan: false });
    },
  };
}

/**
 * For the crash tests only: with D1NODE_CRASH_AFTER_COMMIT=1 the process kills itself right after a write's
 * commit, before anything runs after it, to show that nothing that must follow the write is lost.
 */
function crashPointAfterCommit(): void {
  if (process.env.D1NODE_CRASH_AFTER_COMMIT === "1") process.kill(process.pid, "SIGKILL");
}
