/**
 * The load the crash tests kill a node under, and the check that follows: "a crash at any point leaves either
 * the old state or the new one".
 */
import assert from "node:assert/strict";
import { createHash, randomBytes } from "node:crypto";
import { type Caller, call, create, enc, update } from "../clients/client.ts";
import { uniquePid } from "../data/sysmeta.ts";
import type { NodeProcess } from "../nodes/process-node.ts";

export interface CrashLoad {
  /** Every object a worker tried to create, with its bytes. */
  created: Map<string, Buffer>;
  /** [old, new] pairs of every update a worker started. */
  updates: [string, string][];
}

const sha1 = (data: Buffer) => createHash("sha1").update(data).digest("hex");

/** Creates and updates objects from `workers` loops for `runMs`, then SIGKILLs the node. */
export async function loadThenKill(
  running: NodeProcess,
  caller: Caller,
  options: { workers: number; maxExtraBytes: number; runMs: number },
): Promise<CrashLoad> {
  const created = new Map<string, Buffer>();
  const updates: [string, string][] = [];
  let stop = false;
  const worker = async () => {
    while (!stop) {
      const pid = uniquePid("crash");
      const bytes = randomBytes(64 * 1024 + Math.floor(Math.random() * options.maxExtraBytes));
      created.set(pid, bytes);
      try {
        const response = await create(caller, pid, bytes);
        if (response.status !== 200 || stop) continue;
        const next = uniquePid("crash-v2");
        const nextBytes = randomBytes(100_000);
        created.set(next, nextBytes);
        updates.push([pid, next]);
        await update(caller, pid, next, nextBytes);
      } catch {
        return; // the server is gone
      }
    }
  };
  const workers = Array.from({ length: options.workers }, worker);
  await new Promise((r) => setTimeout(r, options.runMs));
  await running.kill("SIGKILL");
  stop = true;
  await Promise.all(workers);
  return { created, updates };
}

/** On the restarted node: each object is whole or absent, and each update happened entirely or not at all. */
export async function assertOldOrNew(caller: Caller, { created, updates }: CrashLoad): Promise<void> {
  let visible = 0;
  for (const [pid, bytes] of created) {
    const meta = await call(caller, "GET", `/meta/${enc(pid)}`);
    if (meta.status === 404) continue;
    assert.equal(meta.status, 200);
    visible++;
    const body = Buffer.from(await (await call(caller, "GET", `/object/${enc(pid)}`)).arrayBuffer());
    assert.equal(sha1(body), sha1(bytes), pid);
  }
  assert.ok(visible > 0, "no object was created before the kill");
  for (const [oldPid, newPid] of updates) {
    const oldMeta = await (await call(caller, "GET", `/meta/${enc(oldPid)}`)).text();
    const newExists = (await call(caller, "GET", `/meta/${enc(newPid)}`)).status === 200;
    assert.equal(
      oldMeta.includes(`<obsoletedBy>${newPid}</obsoletedBy>`),
      newExists,
      `${oldPid} -> ${newPid}`,
    );
  }
}
