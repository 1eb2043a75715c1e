/**
 * A federation as it runs on separate machines: a CN and three Member Nodes, each its own `d1node serve`
 * process with its own node certificate (from the test's CA), over mutual TLS, no token key copied anywhere.
 * The MNs register themselves (`d1node register`), the administrator approves them on the running CN
 * (`d1node node approve --cn`, with a client certificate), a create is harvested within 5 s, and a Member Node
 * that is down is marked so and, once back, gets its pending replica within 60 s. Both databases.
 */
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { createHash } from "node:crypto";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { fileURLToPath } from "node:url";
import { serializeSystemMetadata } from "../../src/types/index.ts";
import { closeTlsAgents, tlsCall } from "../helpers/clients/tls-client.ts";
import { createTestPki, type Issued, type TestPki, USERS } from "../helpers/data/pki.ts";
import { createTestPostgresDatabase, type TestPostgres } from "../helpers/db/postgres.ts";
import { testDialects } from "../helpers/nodes/node.ts";
import { type NodeProcess, spawnNode } from "../helpers/nodes/process-node.ts";
import { eventually } from "../helpers/time/eventually.ts";

const BIN = fileURLToPath(new URL("../../bin/d1node.js", import.meta.url));
const CN_ID = "urn:node:PROCCN";
const MN_IDS = ["urn:node:PROCMN1", "urn:node:PROCMN2", "urn:node:PROCMN3"];
const subjectOf = (id: string) => `CN=${id},DC=dataone,DC=org`;

function cli(args: string[]): Promise<{ status: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = execFile(process.execPath, [BIN, ...args], (_error, stdout, stderr) =>
      resolve({ status: child.exitCode, stdout, stderr }),
    );
  });
}

for (const dialect of testDialects()) {
  describe(`separate-process federation over mutual TLS (${dialect})`, { timeout: 600_000 }, () => {
    let pki: TestPki;
    let ca: string;
    let dir: string;
    const databases: TestPostgres[] = [];
    const processes = new Map<string, NodeProcess>();
    const certs = new Map<string, Issued>();
    const args = new Map<string, string[]>();
    const env = {
      D1NODE_NODE_PING_INTERVAL: "1",
      D1NODE_REPLICATION_SCAN_INTERVAL: "0",
      D1NODE_REPLICATE: "true",
    };
    let cnUrl = "";
    const admin = () => ({ baseUrl: `${cnUrl}/v2`, ca, cert: pki.users.admin });

    const start = async (id: string) => {
      const node = await spawnNode(args.get(id) as string[], env);
      processes.set(id, node);
      return node;
    };

    before(async () => {
      pki = createTestPki();
      ca = await readFile(pki.caFile, "utf8");
      dir = await mkdtemp(path.join(tmpdir(), "d1node-procfed-"));
      for (const id of [CN_ID, ...MN_IDS]) {
        const cert = pki.node(id);
        certs.set(id, cert);
        const database = dialect === "postgres" ? await createTestPostgresDatabase() : undefined;
        if (database) databases.push(database);
        args.set(id, [
          ...["--node-id", id, "--data-dir", path.join(dir, id.slice(9))],
          ...["--tls-cert", cert.certFile, "--tls-key", cert.keyFile, "--client-ca", pki.caFile],
          ...["--node-cert", cert.certFile, "--node-key", cert.keyFile, "--peer-ca", pki.caFile],
          ...["--admin-subject", USERS.admin],
          ...(database ? ["--database-url", database.url] : []),
        ]);
      }
      args.get(CN_ID)?.push("--role", "cn");
      cnUrl = (await start(CN_ID)).baseUrl;
      for (const id of MN_IDS) {
        args.get(id)?.push("--cn-base-url", cnUrl, "--cn-subject", subjectOf(CN_ID));
        const mn = await start(id);
        // Later starts keep the port the CN knows the node by.
        args.get(id)?.push("--port", new URL(mn.baseUrl).port);
      }
    });
    after(async () => {
      closeTlsAgents();
      for (const node of processes.values()) await node.kill();
      for (const database of databases) await database.drop();
      await rm(dir, { recursive: true, force: true });
      pki.close();
    });

    it("Member Nodes register with their certificates; the administrator approves them on the running CN", async () => {
      for (const id of MN_IDS) {
        const cert = certs.get(id) as Issued;
        const mn = processes.get(id) as NodeProcess;
        const registered = await cli([
          ...["register", "--cn", cnUrl, "--node-url", mn.baseUrl],
          ...["--node-cert", cert.certFile, "--node-key", cert.keyFile, "--peer-ca", pki.caFile],
          ...["--data-dir", path.join(dir, "cli")],
        ]);
        assert.equal(registered.status, 0, registered.stderr);
        assert.match(registered.stdout, new RegExp(`${id} registered .*${subjectOf(id)}.*pending approval`));
        const approved = await cli([
          ...["node", "approve", id, "--cn", cnUrl],
          ...["--node-cert", pki.users.admin.certFile, "--node-key", pki.users.admin.keyFile],
          ...["--peer-ca", pki.caFile, "--data-dir", path.join(dir, "cli")],
        ]);
        assert.equal(approved.status, 0, approved.stderr);
      }
      const again = await cli([
        ...[
          "register",
          "--cn",
          cnUrl,
          "--node-url",
          (processes.get(MN_IDS[0] as string) as NodeProcess).baseUrl,
        ],
        ...["--node-cert", certs.get(MN_IDS[0] as string)?.certFile as string],
        ...["--node-key", certs.get(MN_IDS[0] as string)?.keyFile as string, "--peer-ca", pki.caFile],
        ...["--data-dir", path.join(dir, "cli")],
      ]);
      assert.match(again.stdout, /already registered; capabilities updated .*: approved/, again.stderr);
      const list = await tlsCall(admin(), "GET", "/node");
      for (const id of MN_IDS) assert.match(list.body, new RegExp(`<identifier>${id}</identifier>`));
      await eventually("every MN pinged up", async () => {
        const nodes = (await tlsCall(admin(), "GET", "/node")).body;
        return (nodes.match(/<ping success="true"/g) ?? []).length === 3 ? true : undefined;
      });
    });

    it("a create on a Member Node is harvested by the CN (its notice asks for it at once)", async () => {
      const mn1 = processes.get(MN_IDS[0] as string) as NodeProcess;
      const pid = await createObject(mn1.baseUrl, 0);
      await eventually("the CN holds the object", async () =>
        (await tlsCall(admin(), "GET", `/meta/${encodeURIComponent(pid)}`)).status === 200 ? true : undefined,
      );
    });

    it("a Member Node that is down is marked down; back, it gets its pending replica", async () => {
      const down = MN_IDS[2] as string;
      await (processes.get(down) as NodeProcess).kill();
      const stateOf = async (id: string) => {
        const nodes = (await tlsCall(admin(), "GET", "/node")).body;
        const entry = nodes.split("<node ").find((n) => n.includes(`<identifier>${id}</identifier>`)) ?? "";
        return /state="(\w+)"/.exec(entry)?.[1];
      };
      await eventually("the CN marks it down", async () =>
        (await stateOf(down)) === "down" ? true : undefined,
      );
      const mn1 = processes.get(MN_IDS[0] as string) as NodeProcess;
      const pid = await createObject(mn1.baseUrl, 2);
      const replicaOn = async (id: string) => {
        const meta = await tlsCall(admin(), "GET", `/meta/${encodeURIComponent(pid)}`);
        return new RegExp(`<replicaMemberNode>${id}</replicaMemberNode><replicationStatus>completed`).test(
          meta.body,
        );
      };
      await eventually("the replica on the node that is up", async () =>
        (await replicaOn(MN_IDS[1] as string)) ? true : undefined,
      ).catch(async (error) => {
        const meta = await tlsCall(admin(), "GET", `/meta/${encodeURIComponent(pid)}`);
        const logs = [...processes.values()].map((p) => p.output()).join("\n");
        throw new Error(`${error.message}\n${meta.body}\n${logs}`);
      });
      assert.equal(await replicaOn(down), false);
      await start(down);
      await eventually(
        "the replica on the node that came back",
        async () => ((await replicaOn(down)) ? true : undefined),
        60_000,
      );
      assert.equal(await stateOf(down), "up");
    });

    /** MNStorage.create as the administrator (client certificate), with a replication policy. */
    async function createObject(mnUrl: string, numberReplicas: number): Promise<string> {
      const pid = `procfed-${numberReplicas}-${Date.now()}`;
      const bytes = Buffer.from(`a,b\n${pid},1\n`);
      const sysmeta = serializeSystemMetadata(
        {
          identifier: pid,
          formatId: "text/csv",
          size: bytes.length,
          checksum: { algorithm: "SHA-1", value: createHash("sha1").update(bytes).digest("hex") },
          rightsHolder: USERS.admin,
          accessPolicy: [{ subjects: ["public"], permissions: ["read"] }],
          replicationPolicy: {
            replicationAllowed: numberReplicas > 0,
            numberReplicas,
            preferredMemberNodes: [],
            blockedMemberNodes: [],
          },
          replicas: [],
        },
        "v2",
      );
      const body = new FormData();
      body.append("pid", pid);
      body.append("object", new Blob([new Uint8Array(bytes)]), "object.csv");
      body.append("sysmeta", new Blob([sysmeta], { type: "text/xml" }), "sysmeta.xml");
      const created = await tlsCall(
        { baseUrl: `${mnUrl}/v2`, ca, cert: pki.users.admin },
        "POST",
        "/object",
        body,
      );
      assert.equal(created.status, 200, created.body);
      return pid;
    }
  });
}
