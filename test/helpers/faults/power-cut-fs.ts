/**
 * A folder on power-cut-fs.py (FUSE, Debian's python3-fusepy): a filesystem that keeps, across a "power cut",
 * only what was fsynced. Needs root and /dev/fuse; `unavailable()` says why it cannot run here.
 */
import { execFileSync, spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";

const SCRIPT = fileURLToPath(new URL("./power-cut-fs.py", import.meta.url));
/** Debian's interpreter, where python3-fusepy installs the module (not a python3 of another origin on PATH). */
const PYTHON = "/usr/bin/python3";

export interface PowerCutFs {
  /** Everything written so far becomes durable (the kernel's writeback of a node that ran for a while). */
  sync(): Promise<void>;
  /** The power goes: from now on every operation fails and all that was not fsynced is gone. */
  cut(): Promise<void>;
  /** Unmount after a cut (the processes using the folder must be gone) and mount what survived. */
  remount(): Promise<void>;
  /** Unmount for good. */
  close(): Promise<void>;
}

/** Why the filesystem cannot be mounted here, or undefined. */
export function unavailable(): string | undefined {
  if (process.getuid?.() !== 0) return "mounting a FUSE filesystem needs root";
  if (!existsSync("/dev/fuse")) return "no /dev/fuse (a container without the FUSE device)";
  try {
    execFileSync(PYTHON, ["-c", "import fusepy"], { stdio: "pipe" });
  } catch {
    return "python3-fusepy is not installed (scripts/prerequisites.sh installs it)";
  }
  return undefined;
}

export async function mountPowerCutFs(mountpoint: string): Promise<PowerCutFs> {
  const child = spawn(PYTHON, [SCRIPT, mountpoint], { stdio: ["pipe", "pipe", "pipe"] });
  let errors = "";
  child.stderr.on("data", (chunk: Buffer) => {
    errors += chunk.toString();
  });
  const waiting: { line: string; resolve: () => void; reject: (error: Error) => void }[] = [];
  createInterface({ input: child.stdout }).on("line", (line) => {
    const next = waiting[0];
    if (next?.line === line.trim()) {
      waiting.shift();
      next.resolve();
    }
  });
  child.once("exit", (code) => {
    for (const next of waiting.splice(0)) next.reject(new Error(`power-cut-fs exited (${code}): ${errors}`));
  });
  const expect = (line: string) =>
    new Promise<void>((resolve, reject) => {
      if (child.exitCode !== null) reject(new Error(`power-cut-fs exited: ${errors}`));
      else waiting.push({ line, resolve, reject });
    });
  const command = (line: string, answer: string) => {
    const answered = expect(answer);
    child.stdin.write(`${line}\n`);
    return answered;
  };
  await expect("mounted");
  return {
    sync: () => command("sync", "synced"),
    cut: () => command("cut", "cut"),
    async remount() {
      const mounted = expect("mounted");
      execFileSync("umount", [mountpoint], { stdio: "pipe" });
      await mounted;
    },
    async close() {
      if (child.exitCode !== null) return;
      const exited = new Promise((resolve) => child.once("exit", resolve));
      child.stdin.end();
      await exited;
    },
  };
}
