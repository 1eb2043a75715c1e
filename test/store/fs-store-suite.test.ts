/** The filesystem store passes the shared ObjectStore conformance suite. */
import { randomUUID } from "node:crypto";
import { mkdtemp, readdir, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { createFsStore } from "../../src/store/index.ts";
import { runObjectStoreSuite } from "./object-store-suite.ts";

runObjectStoreSuite("filesystem", async () => {
  const root = await mkdtemp(path.join(os.tmpdir(), "d1node-store-"));
  const store = await createFsStore(root);
  return {
    store,
    reopen: () => createFsStore(root),
    temps: async () => (await readdir(path.join(root, "tmp"))).length,
    leaveTemp: () => writeFile(path.join(root, "tmp", randomUUID()), "left by a crash"),
    async dispose() {
      await store.close();
      await rm(root, { recursive: true, force: true });
    },
  };
});
