/**
 * A local federation for the benchmarks: a Coordinating Node in the benchmark's process and Member Nodes in
 * processes of their own (`d1node serve`, as on their own machines). Each MN trusts the CN's signing key and
 * knows its subject; the CN trusts the MNs' keys, and has each MN registered (CNRegister.register, as the MN)
 * and approved.
 */
import { writeFile } from "node:fs/promises";
import path from "node:path";
import { loadOrCreateSigningKey } from "../../src/auth/keys.ts";
import { mintToken } from "../../src/auth/tokens.ts";
import { resolveConfig } from "../../src/config/config.ts";
import { type RunningNode, startNode } from "../../src/node/start.ts";
import { approveNode } from "../../src/services/cn/register.ts";
import { type Backend, BIN, dbFlags, runCli } from "./node.ts";
import { type Served, serve } from "./processes.ts";

export const ADMIN = "CN=bench-admin,DC=d1node,DC=org";
export const CN_ID = "urn:node:BENCHCN";
export const subjectOf = (id: string) => `CN=${id},DC=dataone,DC=org`;
/** The MN's own schedule names no time soon: the benchmark starts the harvest itself. */
const NEVER = { sec: "0", min: "0", hour: "0", mday: "1", mon: "1", wday: "?", year: "2199" };

export interface MemberNodeSetup {
  id: string;
  dir: string;
  db: Backend;
  /** Further settings of its configuration file. */
  settings?: Record<string, unknown>;
}

/** The public key of the node whose data folder is `dataDir`, in a PEM file (created with the key if new). */
export async function publicKeyFile(dir: string, dataDir: string, name: string): Promise<string> {
  const { publicKey } = loadOrCreateSigningKey(dataDir);
  const file = path.join(dir, `${name}.pem`);
  await writeFile(file, publicKey.export({ type: "spki", format: "pem" }));
  return file;
}

/** The CN, trusting the tokens the MNs (data folders `mnDirs`) sign. */
export async function startCoordinatingNode(
  tmp: string,
  db: Backend,
  mnDirs: string[],
): Promise<RunningNode> {
  const cnDir = path.join(tmp, "cn");
  const keys = await Promise.all(mnDirs.map((dir, i) => publicKeyFile(tmp, dir, `mn-${i}`)));
  return startNode(
    resolveConfig({
      role: "cn",
      port: 0,
      dataDir: cnDir,
      nodeId: CN_ID,
      nodeSubject: subjectOf(CN_ID),
      adminSubjects: [ADMIN],
      trustedTokenKeys: keys,
      logLevel: "warn",
      ...(db.url ? { databaseUrl: db.url } : {}),
    }),
    { logLevel: false },
  );
}

/** The MN's configuration file: its identity, and the CN it trusts. */
export async function memberNodeConfig(tmp: string, mn: MemberNodeSetup, cn: RunningNode): Promise<string> {
  const cnKey = await publicKeyFile(tmp, cn.ctx.config.dataDir, "cn");
  const file = path.join(tmp, `${path.basename(mn.dir)}.json`);
  await writeFile(
    file,
    JSON.stringify({
      nodeId: mn.id,
      nodeSubject: subjectOf(mn.id),
      cnSubjects: [subjectOf(CN_ID)],
      trustedTokenKeys: [cnKey],
      cnBaseUrl: cn.baseUrl,
      syncSchedule: NEVER,
      ...mn.settings,
    }),
  );
  return file;
}

/** `d1node load` of `count` objects into the MN's data folder (node stopped), then its search index built. */
export async function loadMemberNode(
  config: string,
  mn: MemberNodeSetup,
  count: number,
  prefix?: string,
): Promise<number> {
  const seconds = await runCli([
    "load",
    "--count",
    String(count),
    ...(prefix ? ["--prefix", prefix] : []),
    "-c",
    config,
    "--data-dir",
    mn.dir,
    ...dbFlags(mn.db),
  ]);
  // Its search index built before it serves, as on a node in service (not during the harvest).
  await runCli(["index", "--missing", "-c", config, "--data-dir", mn.dir, ...dbFlags(mn.db)]);
  process.stderr.write("\n");
  return seconds;
}

/** `d1node serve` for the MN (node flags from BENCH_NODE_FLAGS, e.g. --cpu-prof), registered and approved. */
export async function serveMemberNode(config: string, mn: MemberNodeSetup, cn: RunningNode): Promise<Served> {
  const args = ["serve", "-c", config, "--data-dir", mn.dir, "--port", "0", "--log-level", "warn"];
  const mnArgs = [...args, "--admin-subject", ADMIN, ...dbFlags(mn.db)];
  // As users start it, unless node flags are asked for.
  const flags = (process.env.BENCH_NODE_FLAGS ?? "").split(/\s+/).filter(Boolean);
  const served = flags.length > 0 ? await serve([...flags, BIN, ...mnArgs]) : await serve(mnArgs, {}, BIN);
  try {
    await register(cn, mn, served.url.replace(/\/$/, ""));
  } catch (error) {
    await served.stop();
    throw error;
  }
  return served;
}

/** CNRegister.register as the MN itself, then the administrator's approval. */
async function register(cn: RunningNode, mn: MemberNodeSetup, mnUrl: string): Promise<void> {
  const capabilities = await fetch(`${mnUrl}/v2/node`);
  if (!capabilities.ok) throw new Error(`MN getCapabilities: HTTP ${capabilities.status}`);
  const body = new FormData();
  body.append("node", new File([await capabilities.text()], "node.xml", { type: "text/xml" }));
  const token = await mintToken(loadOrCreateSigningKey(mn.dir).privateKey, { subject: subjectOf(mn.id) });
  const registered = await fetch(`${cn.baseUrl}/v2/node`, {
    method: "POST",
    headers: { authorization: `Bearer ${token}` },
    body,
  });
  if (!registered.ok)
    throw new Error(`CNRegister.register: HTTP ${registered.status} ${await registered.text()}`);
  await approveNode(cn.ctx.db, mn.id);
}
