/**
 * A GMN 3.5 Member Node for the interop checks: settings written from the test PKI and a PostgreSQL database of
 * its own, migrations run, and GMN served over HTTPS with client certificates by gmn-tls-server.py. GMN's code
 * is not part of this repository: D1_PYTHON_DIR and PYXB_DIR name checkouts of DataONEorg/d1_python and PyXB-X.
 */
import { type ChildProcess, execFile, spawn } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import path from "node:path";
import { fileURLToPath } from "node:url";
import type { Issued } from "../../test/helpers/data/pki.ts";

const PYTHON = "/usr/bin/python3";
const FRONT = fileURLToPath(new URL("./gmn-tls-server.py", import.meta.url));

export interface GmnOptions {
  d1PythonDir: string;
  pyxbDir: string;
  dir: string;
  nodeId: string;
  cert: Issued;
  caFile: string;
  /** postgres://user@host:port/database, a database of GMN's own. */
  databaseUrl: string;
  /** GMN's DATAONE_ROOT: the CN it registers with and reads the node list (its trusted CN subjects) from. */
  cnBaseUrl: string;
}

export interface GmnNode {
  baseUrl: string;
  /** Runs a GMN management command (manage.py NAME ARGS); its exit code and output. */
  manage(args: string[]): Promise<{ code: number; output: string }>;
  output(): string;
  stop(): Promise<void>;
}

export async function startGmn(o: GmnOptions): Promise<GmnNode> {
  const port = await freePort();
  const baseUrl = `https://127.0.0.1:${port}/mn`;
  const settingsDir = path.join(o.dir, "settings");
  const store = path.join(o.dir, "store");
  mkdirSync(settingsDir, { recursive: true });
  mkdirSync(store, { recursive: true });
  const db = new URL(o.databaseUrl);
  const py = (text: string) => JSON.stringify(text);
  writeFileSync(
    path.join(settingsDir, "gmn_interop_settings.py"),
    [
      "from d1_gmn.app.settings_default import *  # noqa: F401,F403",
      "import d1_client.session",
      "import django.core.management.base",
      // GMN 3.5's commands parse their own options, without the skip_checks one Debian's Django 3.2 reads.
      "django.core.management.base.BaseCommand.requires_system_checks = []",
      // d1_python's clients verify servers against Debian's CA bundle path, not REQUESTS_CA_BUNDLE.
      `d1_client.session.UBUNTU_CA_BUNDLE_PATH = ${py(o.caFile)}`,
      "STAND_ALONE = False",
      `DATAONE_ROOT = ${py(o.cnBaseUrl)}`,
      // Outside stand-alone mode GMN looks for its logo here at start (by default on GitHub).
      `NODE_LOGO_ROOT = ${py(o.cnBaseUrl)}`,
      "DATAONE_TRUSTED_SUBJECTS = set()",
      `NODE_IDENTIFIER = ${py(o.nodeId)}`,
      `NODE_NAME = ${py("GMN interop node")}`,
      `NODE_BASEURL = ${py(baseUrl)}`,
      `NODE_SUBJECT = ${py(o.cert.subject)}`,
      'NODE_SYNC_SCHEDULE_MINUTE = "*"',
      'NODE_SYNC_SCHEDULE_SECOND = "0"', // the schema allows one second value only
      "NODE_REPLICATE = True",
      `CLIENT_CERT_PATH = ${py(o.cert.certFile)}`,
      `CLIENT_CERT_PRIVATE_KEY_PATH = ${py(o.cert.keyFile)}`,
      `OBJECT_STORE_PATH = ${py(store)}`,
      `SECRET_KEY_PATH = ${py(path.join(o.dir, "secret_key.txt"))}`,
      `LOG_FILE_PATH = ${py(path.join(o.dir, "gmn.log"))}`,
      'LOGGING["handlers"]["rotating_file"]["filename"] = LOG_FILE_PATH',
      `OBJECT_FORMAT_CACHE_PATH = ${py(path.join(o.dir, "formats.json"))}`,
      `DATABASES["default"].update(NAME=${py(db.pathname.slice(1))}, HOST=${py(db.hostname)}, PORT=${py(db.port || "5432")}, USER=${py(decodeURIComponent(db.username))})`,
      "",
    ].join("\n"),
  );
  const env = {
    ...process.env,
    PYTHONPATH: [
      settingsDir,
      ...["lib_common", "lib_client", "lib_scimeta", "gmn"].map((lib) =>
        path.join(o.d1PythonDir, lib, "src"),
      ),
      o.pyxbDir,
    ].join(":"),
    DJANGO_SETTINGS_MODULE: "gmn_interop_settings",
    // GMN's calls to the CN verify the CN's server certificate against the federation's CA.
    REQUESTS_CA_BUNDLE: o.caFile,
  };
  const manageScript = path.join(o.d1PythonDir, "gmn", "src", "d1_gmn", "manage.py");
  const manage = (args: string[]) =>
    new Promise<{ code: number; output: string }>((resolve) => {
      const child = execFile(PYTHON, [manageScript, ...args], { env }, (_error, stdout, stderr) =>
        resolve({ code: child.exitCode ?? 1, output: `${stdout}${stderr}` }),
      );
    });
  const migrated = await manage(["migrate", "--no-input"]);
  if (migrated.code !== 0) throw new Error(`GMN's migrations failed:\n${migrated.output}`);
  const child = spawn(PYTHON, [FRONT, String(port), o.cert.certFile, o.cert.keyFile, o.caFile], {
    env,
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  await new Promise<void>((resolve, reject) => {
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      if (output.includes("gmn serving")) resolve();
    };
    child.stdout?.on("data", onData);
    child.stderr?.on("data", onData);
    child.once("exit", (code) => reject(new Error(`GMN exited with ${code}:\n${output}`)));
  });
  return { baseUrl, manage, output: () => output, stop: () => stopChild(child) };
}

function stopChild(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve();
    child.once("exit", () => resolve());
    child.kill("SIGTERM");
  });
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      server.close(() => resolve(typeof address === "object" && address ? address.port : 0));
    });
  });
}
