/**
 * The uploads' locker: one request at a time per upload in the process; a newer tus request asks the holder to
 * let go; a create naming a held upload is refused at once; a request waiting on another process's hold is told
 * to try later (423) after the wait; a hold lost meanwhile makes the digests distrusted.
 */
import assert from "node:assert/strict";
import { it } from "node:test";
import type { UploadLocks } from "../../../src/db/objects/upload-locks.ts";
import { UPLOAD_BUSY, UploadLocker } from "../../../src/uploads/upload-locker.ts";

const ID = "0123456789abcdef0123456789abcdef";

/** Locks of "another process": `elsewhere` ids are held there; `lose` makes every release report a lost hold. */
function fakeLocks(elsewhere = new Set<string>(), lose = false): UploadLocks {
  return {
    tryHold: async (id) => (elsewhere.has(id) ? undefined : { release: async () => !lose }),
    close: async () => undefined,
  };
}

const never = new AbortController().signal;

it("a create naming an upload a request holds is refused; free again after unlock", async () => {
  const locker = new UploadLocker(fakeLocks(), () => undefined);
  const lock = locker.newLock(ID);
  await lock.lock(never, async () => undefined);
  assert.equal(await locker.tryTake(ID), undefined);
  await lock.unlock();
  const release = await locker.tryTake(ID);
  assert.ok(release);
  await release();
});

it("a newer request asks the holder to let go, and gets the upload when it does", async () => {
  const locker = new UploadLocker(fakeLocks(), () => undefined);
  const first = locker.newLock(ID);
  let asked = 0;
  await first.lock(never, async () => {
    asked++;
    setImmediate(() => void first.unlock());
  });
  const second = locker.newLock(ID);
  await second.lock(never, async () => undefined);
  assert.equal(asked, 1);
  await second.unlock();
});

it("a request waiting on another process's hold is answered 423 after the wait", async () => {
  const locker = new UploadLocker(fakeLocks(new Set([ID])), () => undefined, 200);
  await assert.rejects(
    locker.newLock(ID).lock(never, async () => undefined),
    (error) => error === UPLOAD_BUSY,
  );
  assert.equal(await locker.tryTake(ID), undefined);
});

it("a hold lost while held makes the upload's digests distrusted", async () => {
  const lost: string[] = [];
  const locker = new UploadLocker(fakeLocks(new Set(), true), (id) => lost.push(id));
  const lock = locker.newLock(ID);
  await lock.lock(never, async () => undefined);
  await lock.unlock();
  assert.deepEqual(lost, [ID]);
});
