/**
 * One request at a time per upload, across the processes that share its bytes: the tus locker (PATCH, DELETE,
 * creation) and the create or update that uses an upload up both hold it. Within the process a map says who holds
 * what, and a newer tus request asks the holder to let go (as @tus/server's MemoryLocker does: a client resuming
 * after a cut must not wait for the dead request); across processes the database's upload locks
 * (src/db/objects/upload-locks.ts) keep others out, and a request there waits for the holder to end. With every write
 * under the hold and tus's offset check, an upload's bytes only grow, so digests kept by offset stay true.
 */
import type { Lock, Locker, RequestRelease } from "@tus/utils";
import { ERRORS } from "@tus/utils";
import type { HeldUpload, UploadLocks } from "../db/objects/upload-locks.ts";

/** How often a request waiting for an upload held elsewhere asks again. */
const RETRY_MS = 50;
/** How long a request waits for an upload held by another before it is told to try later. */
const WAIT_MS = 30_000;

/** tus's answer to a request that waited too long: 423 Locked, which tus clients retry. */
export const UPLOAD_BUSY = {
  status_code: 423,
  body: "The upload is being written by another request; try again once it has ended.\n",
};

export class UploadLocker implements Locker {
  private readonly held = new Map<string, { requestRelease?: RequestRelease }>();

  /** `onLost`: a hold on `id` was lost while held (what was computed meanwhile may not match the file). */
  constructor(
    private readonly locks: UploadLocks,
    private readonly onLost: (id: string) => void,
    private readonly waitMs = WAIT_MS,
  ) {}

  newLock(id: string): Lock {
    let release: (() => Promise<void>) | undefined;
    return {
      lock: async (signal, requestRelease) => {
        release = await this.acquire(id, signal, requestRelease);
      },
      unlock: async () => {
        const releasing = release;
        release = undefined;
        await releasing?.();
      },
    };
  }

  /** Holds `id` now for a create naming it, or undefined when another request (any process) holds it. */
  async tryTake(id: string): Promise<(() => Promise<void>) | undefined> {
    if (this.held.has(id)) return undefined;
    return this.tryHold(id, {});
  }

  private async acquire(id: string, signal: AbortSignal, requestRelease: RequestRelease) {
    const deadline = Date.now() + this.waitMs;
    let asked = false;
    for (;;) {
      if (signal.aborted) throw ERRORS.ABORTED;
      const holder = this.held.get(id);
      if (!holder) {
        const release = await this.tryHold(id, { requestRelease });
        if (release) return release;
      } else if (!asked) {
        asked = true;
        await holder.requestRelease?.();
      }
      if (Date.now() >= deadline) throw UPLOAD_BUSY;
      await new Promise((resolve) => setTimeout(resolve, RETRY_MS));
    }
  }

  /** Marks `id` held here (before waiting on the database, so no other request of the process slips in). */
  private async tryHold(id: string, holder: { requestRelease?: RequestRelease }) {
    this.held.set(id, holder);
    let hold: HeldUpload | undefined;
    try {
      hold = await this.locks.tryHold(id);
    } finally {
      if (!hold) this.held.delete(id);
    }
    if (!hold) return undefined;
    const held = hold;
    return async () => {
      try {
        if (!(await held.release())) this.onLost(id);
      } finally {
        this.held.delete(id);
      }
    };
  }
}
