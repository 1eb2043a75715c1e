/**
 * A PostgreSQL server of a test's own (initdb into a temp folder, run as the postgres user on a free port), for
 * tests that freeze or stop the server itself. Each backend of PostgreSQL starts a session of its own, so the
 * postmaster's children are found by their parent (/proc) to be signalled with it.
 */
import { type ChildProcess, execFile, spawn } from "node:child_process";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { chown, mkdtemp, rm } from "node:fs/promises";
import net from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import pg from "pg";

const run = promisify(execFile);

export interface OwnPostgres {
  url: string;
  /** Signal the postmaster and all its backends (SIGSTOP freezes the server, SIGCONT thaws it). */
  signalAll(signal: NodeJS.Signals): void;
  stop(): Promise<void>;
}

/** The folder holding initdb and postgres, or undefined when no PostgreSQL server is installed. */
export function postgresBinaries(): string | undefined {
  const root = "/usr/lib/postgresql";
  if (!existsSync(root)) return undefined;
  const versions = readdirSync(root).sort((a, b) => Number(b) - Number(a));
  return versions.map((v) => path.join(root, v, "bin")).find((bin) => existsSync(path.join(bin, "initdb")));
}

export async function startOwnPostgres(bin: string): Promise<OwnPostgres> {
  const dir = await mkdtemp(path.join(tmpdir(), "d1node-pg-"));
  const uid = Number((await run("id", ["-u", "postgres"])).stdout.trim());
  const gid = Number((await run("id", ["-g", "postgres"])).stdout.trim());
  await chown(dir, uid, gid);
  const asPostgres = ["--reuid", String(uid), "--regid", String(gid), "--clear-groups"];
  const data = path.join(dir, "data");
  await run(
    "setpriv",
    [...asPostgres, path.join(bin, "initdb"), "-D", data, "-U", "postgres", "-A", "trust"],
    {
      env: { ...process.env, LC_ALL: "C" },
    },
  );
  const port = await freePort();
  const child: ChildProcess = spawn(
    "setpriv",
    [
      ...asPostgres,
      path.join(bin, "postgres"),
      "-D",
      data,
      "-p",
      String(port),
      "-k",
      dir,
      "-c",
      "listen_addresses=127.0.0.1",
      "-c",
      "fsync=off",
    ],
    { detached: true, stdio: "ignore" },
  );
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  const url = `postgres://postgres@127.0.0.1:${port}/postgres`;
  await waitUntilAccepting(url);
  const postmaster = child.pid as number;
  /** The postmaster first: once it is stopped, it starts no new backend. */
  const signalAll = (signal: NodeJS.Signals) => {
    for (const pid of [postmaster, ...childrenOf(postmaster)]) {
      try {
        process.kill(pid, signal);
      } catch {
        // ended meanwhile
      }
    }
  };
  return {
    url,
    signalAll,
    async stop() {
      if (child.exitCode === null && child.signalCode === null) {
        signalAll("SIGCONT");
        child.kill("SIGINT"); // fast shutdown
        await exited;
      }
      await rm(dir, { recursive: true, force: true });
    },
  };
}

async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

async function waitUntilAccepting(url: string): Promise<void> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    const client = new pg.Client({ connectionString: url });
    try {
      await client.connect();
      await client.end();
      return;
    } catch (error) {
      if (Date.now() > deadline) throw error;
      await new Promise((r) => setTimeout(r, 100));
    }
  }
}

/** Processes whose parent is `parent` (the fourth field of /proc/<pid>/stat, after the parenthesised name). */
function childrenOf(parent: number): number[] {
  const children: number[] = [];
  for (const name of readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, "utf8");
      const ppid = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
      if (ppid === parent) children.push(Number(name));
    } catch {
      // ended meanwhile
    }
  }
  return children;
}
