/**
 * GMN 3.5 as a peer of d1node, checked for real: a d1node CN and a d1node MN (separate processes, mutual TLS,
 * node certificates from one test CA) and a GMN Member Node (bench/interop/gmn-node.ts). Prints PASS or FAIL per
 * check and exits 1 when any failed. Run through bench/interop/gmn.sh (which installs what GMN needs).
 *
 * Environment: D1_PYTHON_DIR (a DataONEorg/d1_python checkout), PYXB_DIR (a PyXB-X checkout).
 */
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { serializeSystemMetadata } from "../../src/types/index.ts";
import { form } from "../../test/helpers/clients/client.ts";
import { closeTlsAgents, type TlsCaller, tlsCall } from "../../test/helpers/clients/tls-client.ts";
import { createTestPki, type Issued, USERS } from "../../test/helpers/data/pki.ts";
import { submittedSysmeta } from "../../test/helpers/data/sysmeta.ts";
import { createTestPostgresDatabase, type TestPostgres } from "../../test/helpers/db/postgres.ts";
import { runCli } from "../../test/helpers/nodes/cli.ts";
import { type NodeProcess, spawnNode } from "../../test/helpers/nodes/process-node.ts";
import { type GmnNode, startGmn } from "./gmn-node.ts";

const CN_ID = "urn:node:GMNICN";
const MN_ID = "urn:node:GMNIMN";
const GMN_ID = "urn:node:GMNI";
const WAIT_MS = Number(process.env.GMN_INTEROP_WAIT_MS ?? 120_000);

const results: { name: string; ok: boolean; detail: string }[] = [];

async function check(name: string, run: () => Promise<string | undefined>): Promise<boolean> {
  try {
    const detail = (await run()) ?? "";
    results.push({ name, ok: true, detail });
    console.log(`PASS ${name}${detail ? ` (${detail})` : ""}`);
    return true;
  } catch (error) {
    const detail = error instanceof Error ? error.message : String(error);
    results.push({ name, ok: false, detail });
    console.log(`FAIL ${name}: ${detail}`);
    return false;
  }
}

/** Polls until `probe` returns a value; throws with the last answer after WAIT_MS. */
async function waitFor<T>(what: string, probe: () => Promise<T | undefined>): Promise<T> {
  const deadline = Date.now() + WAIT_MS;
  let last: unknown = "no answer";
  for (;;) {
    try {
      const value = await probe();
      if (value !== undefined) return value;
    } catch (error) {
      last = error instanceof Error ? error.message : error;
    }
    if (Date.now() > deadline) throw new Error(`${what}: not within ${WAIT_MS} ms (${String(last)})`);
    await sleep(500);
  }
}

function required(name: string): string {
  const value = process.env[name];
  if (!value) {
    console.error(`${name} must name a checkout (see docs/federation.md, "GMN and Metacat as peers")`);
    process.exit(2);
  }
  return value;
}

async function main(): Promise<void> {
  const d1PythonDir = required("D1_PYTHON_DIR");
  const pyxbDir = required("PYXB_DIR");
  const pki = createTestPki();
  const ca = await readFile(pki.caFile, "utf8");
  const dir = await mkdtemp(path.join(tmpdir(), "d1node-gmn-interop-"));
  const processes: NodeProcess[] = [];
  let gmn: GmnNode | undefined;
  let database: TestPostgres | undefined;
  const certs = new Map<string, Issued>([CN_ID, MN_ID, GMN_ID].map((id) => [id, pki.node(id)]));
  const cert = (id: string) => certs.get(id) as Issued;
  const nodeArgs = (id: string) => [
    ...["--node-id", id, "--data-dir", path.join(dir, id.slice(9))],
    ...["--tls-cert", cert(id).certFile, "--tls-key", cert(id).keyFile, "--client-ca", pki.caFile],
    ...["--node-cert", cert(id).certFile, "--node-key", cert(id).keyFile, "--peer-ca", pki.caFile],
    ...["--admin-subject", USERS.admin, "--log-level", "info"],
  ];
  const env = { D1NODE_NODE_PING_INTERVAL: "2", D1NODE_REPLICATE: "true" };
  const admin = (baseUrl: string): TlsCaller => ({ baseUrl, ca, cert: pki.users.admin });
  const approve = async (id: string, cnUrl: string) => {
    const run = await runCli([
      ...["node", "approve", id, "--cn", cnUrl],
      ...["--node-cert", pki.users.admin.certFile, "--node-key", pki.users.admin.keyFile],
      ...["--peer-ca", pki.caFile, "--data-dir", path.join(dir, "cli")],
    ]);
    if (run.code !== 0) throw new Error(run.stderr || run.stdout);
  };
  const register = async (nodeUrl: string, id: string) => {
    const run = await runCli([
      ...["register", "--cn", cnUrl, "--node-url", nodeUrl],
      ...["--node-cert", cert(id).certFile, "--node-key", cert(id).keyFile, "--peer-ca", pki.caFile],
      ...["--data-dir", path.join(dir, "cli")],
    ]);
    if (run.code !== 0) throw new Error(run.stderr || run.stdout);
  };
  let cnUrl = "";
  try {
    const cn = await spawnNode([...nodeArgs(CN_ID), "--role", "cn"], env);
    processes.push(cn);
    cnUrl = cn.baseUrl;
    database = await createTestPostgresDatabase();
    gmn = await startGmn({
      d1PythonDir,
      pyxbDir,
      dir: path.join(dir, "gmn"),
      nodeId: GMN_ID,
      cert: cert(GMN_ID),
      caFile: pki.caFile,
      databaseUrl: database.url,
      cnBaseUrl: cnUrl,
    });
    const gmnUrl = gmn.baseUrl;
    const version = (await gmn.manage(["--version"])).output.trim();
    console.log(`GMN (Django ${version}) at ${gmnUrl}; d1node CN at ${cnUrl}`);

    await check("GMN serves its Node document over mutual TLS", async () => {
      const node = await tlsCall({ baseUrl: `${gmnUrl}/v2`, ca, cert: cert(CN_ID) }, "GET", "/node");
      if (node.status !== 200 || !node.body.includes(`<identifier>${GMN_ID}</identifier>`))
        throw new Error(`${node.status} ${node.body.slice(0, 300)}`);
      return undefined;
    });

    // GMN 3.5.2's own node-register command never creates its client (mgmt_base.py tests
    // "self.d1_client is not None" before creating it), so GMN's Node document is sent by `d1node register`.
    await check(
      "GMN's Node document registers with the d1node CN (GMN's certificate) and is approved",
      async () => {
        await register(gmnUrl, GMN_ID);
        await approve(GMN_ID, cnUrl);
        return undefined;
      },
    );

    const mn = await spawnNode([...nodeArgs(MN_ID), "--cn-base-url", cnUrl], env);
    processes.push(mn);
    await check("a d1node MN registers with the CN over mutual TLS", async () => {
      await register(mn.baseUrl, MN_ID);
      await approve(MN_ID, cnUrl);
      return undefined;
    });

    const pids: string[] = [];
    await check("GMN accepts creates (administrator's client certificate)", async () => {
      const listed = await gmn?.manage(["whitelist-add", USERS.admin]);
      if (listed?.code !== 0) throw new Error(listed?.output.slice(-800));
      for (let i = 0; i < 2; i++) pids.push(await createOnGmn(admin(`${gmnUrl}/v2`), i));
      return pids.join(", ");
    });

    await check("the d1node CN harvests GMN's objects", async () => {
      for (const pid of pids) {
        await waitFor(`the CN holds ${pid}`, async () => {
          const meta = await tlsCall(admin(`${cnUrl}/v2`), "GET", `/meta/${encodeURIComponent(pid)}`);
          if (meta.status !== 200) throw new Error(`${meta.status} ${meta.error}`);
          return meta.body.includes(`<authoritativeMemberNode>${GMN_ID}</authoritativeMemberNode>`)
            ? true
            : undefined;
        });
      }
      return `${pids.length} objects`;
    });

    const pid = pids[0] as string;
    await check("the CN replicates a GMN object to the d1node MN (getReplica from GMN)", async () => {
      await waitFor("replica completed", async () => {
        const meta = await tlsCall(admin(`${cnUrl}/v2`), "GET", `/meta/${encodeURIComponent(pid)}`);
        const done = new RegExp(
          `<replicaMemberNode>${MN_ID}</replicaMemberNode><replicationStatus>completed`,
        );
        if (done.test(meta.body)) return true;
        throw new Error(meta.body.match(/<replica>.*<\/replica>/s)?.[0] ?? "no replica entry yet");
      });
      const onMn = await tlsCall(admin(`${mn.baseUrl}/v2`), "GET", `/object/${encodeURIComponent(pid)}`);
      if (onMn.status !== 200 || !onMn.body.includes(pid)) throw new Error(`MN get: ${onMn.status}`);
      return "bytes served by the d1node MN";
    });

    await check(
      "GMN accepts systemMetadataChanged from the d1node CN (CN subject from listNodes)",
      async () => {
        const body = form({ pid, serialVersion: "1", dateSysMetaLastModified: new Date().toISOString() });
        const changed = await tlsCall(
          { baseUrl: `${gmnUrl}/v1`, ca, cert: cert(CN_ID) },
          "POST",
          "/dirtySystemMetadata",
          body,
        );
        if (changed.status !== 200) throw new Error(`${changed.status} ${changed.body.slice(0, 400)}`);
        return undefined;
      },
    );

    await check("GMN refreshes its system metadata from the d1node CN (process_refresh_queue)", async () => {
      await waitFor("GMN lists the replica", async () => {
        const run = await gmn?.manage(["process_refresh_queue"]);
        const meta = await tlsCall(admin(`${gmnUrl}/v2`), "GET", `/meta/${encodeURIComponent(pid)}`);
        if (meta.body.includes(`<replicaMemberNode>${MN_ID}</replicaMemberNode>`)) return true;
        throw new Error(run?.output.slice(-600));
      });
      return "GMN's copy names the d1node replica";
    });

    await check("d1node import --from GMN copies its objects and logs", async () => {
      const run = await runCli([
        ...["import", "--from", gmnUrl, "--logs", "--data-dir", path.join(dir, "imported")],
        ...["--cert", cert(CN_ID).certFile, "--key", cert(CN_ID).keyFile, "--ca", pki.caFile],
        ...["--admin-subject", USERS.admin],
      ]);
      if (run.code !== 0) throw new Error((run.stderr || run.stdout).slice(-1500));
      return run.stdout.trim().split("\n").pop();
    });
  } catch (error) {
    console.log(`FAIL setup: ${error instanceof Error ? error.message : String(error)}`);
    results.push({ name: "setup", ok: false, detail: "" });
  } finally {
    closeTlsAgents();
    if (process.env.GMN_INTEROP_VERBOSE) {
      for (const node of processes) console.log(node.output());
      console.log(gmn?.output());
    }
    await gmn?.stop();
    for (const node of processes) await node.kill();
    await database?.drop();
    if (!process.env.GMN_INTEROP_KEEP) await rm(dir, { recursive: true, force: true });
    else console.log(`kept ${dir}`);
    pki.close();
  }
  const failed = results.filter((r) => !r.ok).length;
  console.log(`${results.length - failed} passed, ${failed} failed`);
  process.exit(failed === 0 ? 0 : 1);
}

/** MNStorage.create on GMN: a small CSV, public, one replica wanted on the d1node MN. */
async function createOnGmn(caller: TlsCaller, i: number): Promise<string> {
  const pid = `gmn-interop-${i}-${Date.now()}`;
  const bytes = Buffer.from(`a,b\n${pid},${i}\n`);
  const sysmeta = {
    ...submittedSysmeta(pid, bytes, { rightsHolder: USERS.admin }),
    replicationPolicy: {
      replicationAllowed: true,
      numberReplicas: 1,
      preferredMemberNodes: [MN_ID],
      blockedMemberNodes: [],
    },
  };
  const body = form({ pid, object: bytes, sysmeta: { xml: serializeSystemMetadata(sysmeta, "v2") } });
  const created = await tlsCall(caller, "POST", "/object", body);
  if (created.status !== 200)
    throw new Error(`create ${pid}: ${created.status} ${created.body.slice(0, 600)}`);
  return pid;
}

await main();
