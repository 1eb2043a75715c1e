/**
 * A full disk under the store: a create is answered InsufficientResources (MNStorage.create: 1160) as soon as a
 * write fails, the rest of the body is drained so that clients sending their whole body before reading (Python
 * requests) get the answer rather than a reset, and nothing is stored. The store lies on a small tmpfs, a real
 * filesystem that fills up; mounting one needs root.
 */
import assert from "node:assert/strict";
import { execFile, execFileSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdir, mkdtemp, open, readdir, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { promisify } from "node:util";
import { type Caller, call, checkedError, create, enc } from "../../helpers/clients/client.ts";
import { sysmetaXml, uniquePid } from "../../helpers/data/sysmeta.ts";
import { ADMIN, startTestNode, type TestNode } from "../../helpers/nodes/node.ts";

const FS_BYTES = 16 * 1024 * 1024;
const UPLOAD_BYTES = 50 * 1024 * 1024;

function mountTmpfs(dir: string): string | undefined {
  try {
    execFileSync("mount", ["-t", "tmpfs", "-o", `size=${FS_BYTES}`, "tmpfs", dir], { stdio: "pipe" });
    return undefined;
  } catch (error) {
    return `cannot mount a tmpfs (needs root): ${(error as Error).message.split("\n")[0]}`;
  }
}

/**
 * Python requests (the client that saw a reset): sends the whole body, then reads the answer. Run without
 * blocking: the node answers from this process.
 */
async function pythonCreate(url: string, token: string, pid: string, sysmeta: string, size: number) {
  const script = `
import os, requests
data = b"\\x07" * int(os.environ["SIZE"])
r = requests.post(os.environ["URL"], headers={"Authorization": "Bearer " + os.environ["TOKEN"]},
    files={"pid": (None, os.environ["PID"]), "sysmeta": ("s.xml", os.environ["SYSMETA"], "text/xml"),
           "object": ("o.bin", data)}, timeout=60)
print(r.status_code)
print(r.text)
`;
  const { stdout } = await promisify(execFile)("python3", ["-c", script], {
    env: { ...process.env, URL: url, TOKEN: token, PID: pid, SYSMETA: sysmeta, SIZE: String(size) },
    encoding: "utf8",
    timeout: 90_000,
  });
  return stdout;
}

const root = await mkdtemp(path.join(tmpdir(), "d1node-full-"));
const storeDir = path.join(root, "store");
await mkdir(storeDir);
const skip = mountTmpfs(storeDir);

describe("a full disk under the store", { skip: skip ?? false }, () => {
  let node: TestNode;
  let admin: Caller;
  before(async () => {
    node = await startTestNode("sqlite", { dataDir: root });
    admin = { baseUrl: node.baseUrl, token: await node.token(ADMIN) };
  });
  after(async () => {
    await node?.node.close();
    execFileSync("umount", [storeDir]);
    await rm(root, { recursive: true, force: true });
  });

  async function assertNothingStored(pid: string) {
    assert.equal((await call(admin, "GET", `/meta/${enc(pid)}`)).status, 404);
    assert.deepEqual(await readdir(path.join(storeDir, "tmp")), []);
    const objects = await readdir(path.join(storeDir, "objects"), { recursive: true, withFileTypes: true });
    assert.deepEqual(
      objects.filter((e) => e.isFile()).map((e) => e.name),
      [],
    );
  }

  it("a 50 MB create is InsufficientResources at once (fetch), nothing stored", async (t) => {
    const pid = uniquePid("full");
    const bytes = randomBytes(UPLOAD_BYTES);
    const started = Date.now();
    const error = await checkedError(await create(admin, pid, bytes));
    const elapsed = Date.now() - started;
    assert.equal(error.status, 413, error.body);
    assert.equal(error.name, "InsufficientResources");
    assert.equal(error.detailCode, "1160");
    assert.match(error.body, /no space left/);
    t.diagnostic(`50 MB create into a full store answered after ${elapsed} ms`);
    await assertNothingStored(pid);
  });

  it("Python requests gets the InsufficientResources document, not a reset", async () => {
    const pid = uniquePid("full-py");
    const sysmeta = sysmetaXml(pid, Buffer.alloc(0), { size: UPLOAD_BYTES, checksum: "0".repeat(40) });
    const out = await pythonCreate(
      `${admin.baseUrl}/v2/object`,
      admin.token as string,
      pid,
      sysmeta,
      UPLOAD_BYTES,
    );
    assert.match(out, /^413\n/, out);
    assert.match(out, /name="InsufficientResources"/);
    assert.match(out, /detailCode="1160"/);
    await assertNothingStored(pid);
  });

  it("with 0 bytes free even a small create is InsufficientResources; with room again it succeeds", async () => {
    const filler = path.join(storeDir, "filler");
    const handle = await open(filler, "w");
    try {
      const chunk = Buffer.alloc(1 << 20);
      for (;;) await handle.write(chunk);
    } catch (error) {
      assert.equal((error as NodeJS.ErrnoException).code, "ENOSPC");
    } finally {
      await handle.close();
    }
    const pid = uniquePid("full-small");
    const error = await checkedError(await create(admin, pid, Buffer.from("a small object")));
    assert.equal(error.name, "InsufficientResources", error.body);
    assert.equal(error.detailCode, "1160");
    await rm(filler);
    await assertNothingStored(pid);
    const again = await create(admin, pid, Buffer.from("a small object"));
    assert.equal(again.status, 200, await again.text());
  });
});
