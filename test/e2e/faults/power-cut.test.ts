/**
 * "An acknowledged write survives a power cut" (SQLite): a node process serves creates and updates on a
 * filesystem that keeps only what was fsynced (test/helpers/faults/power-cut-fs.py); at a random moment the
 * power goes (the filesystem drops everything unsynced and fails every later call, the node is killed), the
 * filesystem is mounted again and the node restarted on it: every acknowledged object is there with its
 * bytes, every acknowledged update too, the rest old or new, no bytes without an object, no object without
 * its bytes.
 * D1NODE_POWER_CUTS sets the number of cuts (default 3, about a minute on a quiet machine). PostgreSQL's commits are its server's to keep.
 */
import assert from "node:assert/strict";
import { createHash, randomBytes } from "node:crypto";
import { mkdtemp, readdir, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, describe, it } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";
import { loadOrCreateSigningKey } from "../../../src/auth/keys.ts";
import { mintToken } from "../../../src/auth/tokens.ts";
import { type Caller, call, create, enc, update } from "../../helpers/clients/client.ts";
import { uniquePid } from "../../helpers/data/sysmeta.ts";
import { assertOldOrNew, type CrashLoad } from "../../helpers/faults/crash-load.ts";
import { mountPowerCutFs, type PowerCutFs, unavailable } from "../../helpers/faults/power-cut-fs.ts";
import { ADMIN } from "../../helpers/nodes/node.ts";
import { type NodeProcess, spawnNode } from "../../helpers/nodes/process-node.ts";
import { eventually } from "../../helpers/time/eventually.ts";

const CUTS = Number(process.env.D1NODE_POWER_CUTS ?? 3);
const WORKERS = 4;
const sha256 = (data: Buffer) => createHash("sha256").update(data).digest("hex");
const SHA256 = { algorithm: "SHA-256" } as const;

/** What the clients were told: objects created or updated (with their bytes), and updates done. */
interface Acknowledged {
  objects: Map<string, Buffer>;
  obsoletedBy: Map<string, string>;
}

const skip = unavailable();

describe("a power cut during creates and updates (SQLite)", { skip: skip ?? false }, () => {
  let root: string | undefined;
  let fs: PowerCutFs | undefined;
  let running: NodeProcess | undefined;
  let over = false;
  after(async () => {
    over = true; // a test that timed out goes on running: it starts no node on the unmounted folder
    await running?.kill("SIGKILL");
    await fs?.close();
    if (root) await rm(root, { recursive: true, force: true });
  });

  it(`loses no acknowledged write over ${CUTS} cuts`, { timeout: 600_000 }, async () => {
    root = await mkdtemp(path.join(tmpdir(), "d1node-power-cut-"));
    fs = await mountPowerCutFs(root);
    const dataDir = path.join(root, "data");
    const args = ["--data-dir", dataDir, "--admin-subject", ADMIN];
    const token = await mintToken(loadOrCreateSigningKey(dataDir).privateKey, { subject: ADMIN });
    const acknowledged: Acknowledged = { objects: new Map(), obsoletedBy: new Map() };
    const attempted: CrashLoad = { created: new Map(), updates: [] };

    for (let cut = 1; cut <= CUTS + 1 && !over; cut++) {
      running = await spawnNode(args);
      const caller: Caller = { baseUrl: running.baseUrl, token };
      if (cut > 1) await assertSurvived(caller, dataDir, acknowledged, attempted);
      if (cut > CUTS) break;
      // What the node wrote until now reaches the disk, as the kernel's writeback would within seconds.
      await fs.sync();
      await loadThenCut(caller, fs, running, acknowledged, attempted);
      await fs.remount();
    }
  });
});

/** Creates and updates from WORKERS loops; the power goes at a random moment after the first acknowledgements. */
async function loadThenCut(
  caller: Caller,
  fs: PowerCutFs,
  running: NodeProcess,
  acknowledged: Acknowledged,
  attempted: CrashLoad,
): Promise<void> {
  let stop = false;
  let answered = 0;
  const worker = async () => {
    const mine: string[] = [];
    while (!stop) {
      try {
        const older = mine.find((pid) => !acknowledged.obsoletedBy.has(pid));
        const pid = uniquePid("cut");
        const bytes = randomBytes(1024 + Math.floor(Math.random() * 64 * 1024));
        attempted.created.set(pid, bytes);
        if (older && Math.random() < 0.5) {
          attempted.updates.push([older, pid]);
          const response = await update(caller, older, pid, bytes, SHA256);
          if (response.status !== 200) continue;
          acknowledged.obsoletedBy.set(older, pid);
        } else if ((await create(caller, pid, bytes, SHA256)).status !== 200) continue;
        acknowledged.objects.set(pid, bytes);
        mine.push(pid);
        answered++;
      } catch {
        return; // the node is gone
      }
    }
  };
  const workers = Array.from({ length: WORKERS }, worker);
  await eventually("first acknowledged writes", async () => (answered >= 4 ? true : undefined));
  await sleep(Math.random() * 1500);
  await fs.cut();
  await running.kill("SIGKILL");
  stop = true;
  await Promise.all(workers);
}

/** After the restart: the acknowledged writes, nothing half there, no bytes without an object. */
async function assertSurvived(
  caller: Caller,
  dataDir: string,
  acknowledged: Acknowledged,
  attempted: CrashLoad,
): Promise<void> {
  const gone: string[] = [];
  for (const [pid, bytes] of acknowledged.objects) {
    const response = await call(caller, "GET", `/object/${enc(pid)}`);
    if (response.status === 404) gone.push(pid);
    else assert.equal(sha256(Buffer.from(await response.arrayBuffer())), sha256(bytes), pid);
  }
  assert.deepEqual(gone, [], `${gone.length} of ${acknowledged.objects.size} acknowledged objects gone`);
  for (const [older, newer] of acknowledged.obsoletedBy) {
    const meta = await (await call(caller, "GET", `/meta/${enc(older)}`)).text();
    assert.ok(
      meta.includes(`<obsoletedBy>${newer}</obsoletedBy>`),
      `acknowledged update ${older} -> ${newer}`,
    );
  }
  await assertOldOrNew(caller, attempted);

  // Every listed object is whole (its bytes are the ones sent), and every stored file belongs to one of them.
  const listed = await listedChecksums(caller);
  for (const [pid, checksum] of listed) {
    const sent = attempted.created.get(pid);
    assert.ok(sent, `listed ${pid} was never sent`);
    assert.equal(checksum, sha256(sent), `${pid}: recorded checksum`);
    const response = await call(caller, "GET", `/object/${enc(pid)}`);
    assert.equal(sha256(Buffer.from(await response.arrayBuffer())), checksum, `${pid}: stored bytes`);
  }
  const referenced = new Set(listed.values());
  const store = path.join(dataDir, "store");
  for (const file of await filesUnder(path.join(store, "objects"))) {
    assert.ok(referenced.has(path.basename(file)), `bytes ${path.basename(file)} belong to no object`);
    assert.equal(sha256(await readFile(file)), path.basename(file), `torn bytes in ${file}`);
  }
  assert.deepEqual(await readdir(path.join(store, "tmp")).catch(() => []), []);
}

/** Every object's identifier and SHA-256, from listObjects (an administrator lists them all). */
async function listedChecksums(caller: Caller): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  for (let start = 0; ; start += 1000) {
    const xml = await (await call(caller, "GET", `/object?start=${start}&count=1000`)).text();
    const infos = xml.split("<objectInfo>").slice(1);
    for (const info of infos) {
      const pid = /<identifier>([^<]+)<\/identifier>/.exec(info)?.[1];
      const checksum = /<checksum algorithm="SHA-256">([0-9a-f]+)<\/checksum>/.exec(info)?.[1];
      assert.ok(pid && checksum, info);
      out.set(pid, checksum);
    }
    if (infos.length < 1000) return out;
  }
}

async function filesUnder(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { withFileTypes: true }).catch(() => []);
  const nested = await Promise.all(
    entries.map((e) => (e.isDirectory() ? filesUnder(path.join(dir, e.name)) : [path.join(dir, e.name)])),
  );
  return nested.flat();
}
