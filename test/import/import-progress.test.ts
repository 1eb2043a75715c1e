/**
 * A large object's progress: the bytes received move on while it arrives, before the object is done, so an
 * operator copying a 2 GiB object sees it going rather than a frozen bar.
 */
import assert from "node:assert/strict";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, it } from "node:test";
import { loadFormatRegistry } from "../../src/context/formats.ts";
import type { Database } from "../../src/db/types.ts";
import type { ImportCounts, ProgressView } from "../../src/import/progress.ts";
import { runImport } from "../../src/import/run.ts";
import { openSource } from "../../src/import/source.ts";
import { IMPORT_FOLLOWS_NOTHING } from "../../src/import/write.ts";
import { createContentLocks } from "../../src/objects/content-locks.ts";
import { createFsStore } from "../../src/store/index.ts";
import { forEachDialect } from "../helpers/db/databases.ts";
import { fakeRecord, startFakeSource } from "./fake-source.ts";

const MIB = 1024 * 1024;

forEachDialect((_name, open) => {
  let db: Database;
  let dir: string;
  after(async () => {
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it("shows a large object's bytes as they arrive", { timeout: 60_000 }, async () => {
    db = await open();
    dir = await mkdtemp(path.join(tmpdir(), "d1node-import-progress-"));
    const store = await createFsStore(dir);
    const fake = await startFakeSource();
    const bytes = Buffer.alloc(8 * MIB, 3);
    fake.objects.set("large", fakeRecord("large", bytes, new Date(Date.now() - 60_000)));
    fake.route = (route, _request, response) => {
      if (route !== "/object/large") return false;
      // In 16 pieces, 20 ms apart: the copy takes a while.
      response.writeHead(200, { "content-type": "application/octet-stream" });
      let sent = 0;
      const timer = setInterval(() => {
        response.write(bytes.subarray(sent, sent + MIB / 2));
        sent += MIB / 2;
        if (sent >= bytes.length) {
          clearInterval(timer);
          response.end();
        }
      }, 20);
      response.on("close", () => clearInterval(timer));
      return true;
    };
    const seen: ImportCounts[] = [];
    const view: ProgressView = {
      update: (counts) => seen.push({ ...counts }),
      finish: () => undefined,
      note: () => undefined,
    };
    const source = await openSource(fake.baseUrl, {});
    try {
      const ctx = {
        db,
        store,
        formats: loadFormatRegistry(),
        contentLocks: createContentLocks(db),
        changes: IMPORT_FOLLOWS_NOTHING,
      };
      const summary = await runImport(ctx, { source, view, concurrency: 1, pageSize: 10 });
      assert.equal(summary.counts.copied, 1);
      assert.equal(summary.counts.bytes, bytes.length);
    } finally {
      await source.close();
      await fake.close();
      await store.close();
    }
    const arriving = seen.filter((c) => c.done === 0 && c.bytes > 0 && c.bytes < bytes.length);
    assert.ok(arriving.length >= 2, `updates while the object arrived: ${arriving.length}`);
  });
});
