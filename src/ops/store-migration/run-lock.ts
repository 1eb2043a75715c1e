/**
 * One store migration at a time per data folder: `store-migration.lock` holds the running command's process id.
 * A lock whose process is gone (killed) is taken over.
 */
import { open, readFile, rm } from "node:fs/promises";
import path from "node:path";

export const RUN_LOCK = "store-migration.lock";

/** Takes the lock; returns its release. Throws an Error naming the running migration when it is held. */
export async function lockMigration(dataDir: string): Promise<() => Promise<void>> {
  const file = path.join(dataDir, RUN_LOCK);
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const handle = await open(file, "wx");
      await handle.writeFile(`${process.pid}\n`);
      await handle.close();
      return () => rm(file, { force: true });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
    }
    const holder = Number((await readFile(file, "utf8").catch(() => "")).trim());
    if (Number.isInteger(holder) && holder > 0 && alive(holder)) {
      throw new Error(`another store migration (process ${holder}) is running on ${dataDir}`);
    }
    await rm(file, { force: true });
  }
  throw new Error(`could not take ${file}: another store migration starts at the same time`);
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}
