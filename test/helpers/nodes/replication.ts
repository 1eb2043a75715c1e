/** Replication tests: objects made known to the CN as synchronization would, and tasks run until none is left. */
import { readdir, readFile, rm, writeFile } from "node:fs/promises";
import path from "node:path";
import { clientFor } from "../../../src/federation/client.ts";
import type { RunningNode } from "../../../src/node/start.ts";
import { NO_BYTES } from "../../../src/services/cn/core.ts";
import { runDueTasks } from "../../../src/tasks/worker.ts";
import type { SystemMetadata } from "../../../src/types/sysmeta.ts";
import type { TestFederation } from "./federation.ts";

/** The CN takes the MN's system metadata as its authoritative copy (as a harvest does). */
export async function synchronizeToCn(
  fed: TestFederation,
  mn: RunningNode,
  pid: string,
  edit: (sysmeta: SystemMetadata) => SystemMetadata = (s) => s,
): Promise<void> {
  const sysmeta = edit(await clientFor(fed.cn.ctx, mn.baseUrl).getSystemMetadata(pid));
  const digests = { size: sysmeta.size, md5: "", sha1: "", sha256: "" };
  await fed.cn.ctx.db.objects.insert({ sysmeta, contentKey: NO_BYTES, digests, isReplica: false });
}

/** Runs every due task on every node still up, round after round, until a round runs none. */
export async function settle(nodes: readonly RunningNode[], rounds = 30): Promise<void> {
  for (let round = 0; round < rounds; round++) {
    let ran = 0;
    for (const node of nodes) ran += await runDueTasks(node.ctx);
    if (ran === 0) return;
  }
  throw new Error(`tasks were still running after ${rounds} rounds`);
}

/** Overwrites the stored bytes of `pid` on a node with as many different bytes. */
export async function corruptStoredBytes(node: RunningNode, pid: string): Promise<void> {
  const object = await node.ctx.db.objects.get(pid);
  if (!object) throw new Error(`${pid} is not on ${node.ctx.config.nodeId}`);
  const file = await findFile(path.join(node.ctx.config.dataDir, "store"), object.contentKey);
  if (!file) throw new Error(`no stored file for ${object.contentKey}`);
  const bytes = await readFile(file);
  await writeFile(file, Buffer.from(bytes.map((b) => b ^ 0xff)));
}

/** Deletes the stored bytes of `pid` on a node (its row stays). */
export async function removeStoredBytes(node: RunningNode, pid: string): Promise<void> {
  const object = await node.ctx.db.objects.get(pid);
  if (!object) throw new Error(`${pid} is not on ${node.ctx.config.nodeId}`);
  const file = await findFile(path.join(node.ctx.config.dataDir, "store"), object.contentKey);
  if (!file) throw new Error(`no stored file for ${object.contentKey}`);
  await rm(file);
}

async function findFile(dir: string, key: string): Promise<string | undefined> {
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) {
      const found = await findFile(full, key);
      if (found) return found;
    } else if (entry.name.includes(key)) {
      return full;
    }
  }
  return undefined;
}
