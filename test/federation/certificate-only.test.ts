/**
 * A Member Node joining a CN that knows certificates only: separate processes over mutual TLS, the MN with
 * `--node-tokens never` and no `--cn-subject`, the CN trusting no key but its own. The MN registers, the
 * administrator approves it, a create is harvested, and the CN's certificate is trusted by the MN for CN-only
 * calls through the CN's listNodes. A token signed by the MN's key is InvalidToken at the CN (a bad credential is
 * never ignored, even next to a certificate), so every call that succeeded carried the certificate alone.
 * Both databases.
 */
import assert from "node:assert/strict";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { form } from "../helpers/clients/client.ts";
import { closeTlsAgents, tlsCall } from "../helpers/clients/tls-client.ts";
import { createTestPki, type Issued, type TestPki, USERS } from "../helpers/data/pki.ts";
import { sysmetaXml } from "../helpers/data/sysmeta.ts";
import { createTestPostgresDatabase, type TestPostgres } from "../helpers/db/postgres.ts";
import { runCli } from "../helpers/nodes/cli.ts";
import { testDialects } from "../helpers/nodes/node.ts";
import { type NodeProcess, spawnNode } from "../helpers/nodes/process-node.ts";
import { eventually } from "../helpers/time/eventually.ts";

const CN_ID = "urn:node:CERTCN";
const MN_ID = "urn:node:CERTMN";

for (const dialect of testDialects()) {
  describe(`a Member Node joins a certificate-only CN (${dialect})`, { timeout: 300_000 }, () => {
    let pki: TestPki;
    let ca: string;
    let dir: string;
    let cn: NodeProcess;
    let mn: NodeProcess;
    let mnCert: Issued;
    let cnCert: Issued;
    const databases: TestPostgres[] = [];

    const nodeArgs = async (id: string, cert: Issued) => {
      const database = dialect === "postgres" ? await createTestPostgresDatabase() : undefined;
      if (database) databases.push(database);
      return [
        ...["--node-id", id, "--data-dir", path.join(dir, id.slice(9))],
        ...["--tls-cert", cert.certFile, "--tls-key", cert.keyFile, "--client-ca", pki.caFile],
        ...["--node-cert", cert.certFile, "--node-key", cert.keyFile, "--peer-ca", pki.caFile],
        ...["--node-tokens", "never", "--admin-subject", USERS.admin],
        ...(database ? ["--database-url", database.url] : []),
      ];
    };

    before(async () => {
      pki = createTestPki();
      ca = await readFile(pki.caFile, "utf8");
      dir = await mkdtemp(path.join(tmpdir(), "d1node-certonly-"));
      cnCert = pki.node(CN_ID);
      mnCert = pki.node(MN_ID);
      cn = await spawnNode([...(await nodeArgs(CN_ID, cnCert)), "--role", "cn"], {
        D1NODE_NODE_PING_INTERVAL: "1",
      });
      mn = await spawnNode([...(await nodeArgs(MN_ID, mnCert)), "--cn-base-url", cn.baseUrl]);
    });
    after(async () => {
      closeTlsAgents();
      await mn?.kill();
      await cn?.kill();
      for (const database of databases) await database.drop();
      await rm(dir, { recursive: true, force: true });
      pki.close();
    });

    it("the CN refuses a token signed by the Member Node's key", async () => {
      const minted = await runCli([
        "token",
        "--subject",
        mnCert.subject,
        "--data-dir",
        path.join(dir, "CERTMN"),
      ]);
      assert.equal(minted.code, 0, minted.stderr);
      const call = await tlsCall(
        { baseUrl: `${cn.baseUrl}/v2`, ca, cert: mnCert, token: minted.stdout.trim() },
        "GET",
        "/node",
      );
      assert.equal(call.status, 401);
      assert.equal(call.error, "InvalidToken");
    });

    it("register -> approve -> harvested, with client certificates only", async () => {
      const registered = await runCli([
        ...["register", "--cn", cn.baseUrl, "--node-url", mn.baseUrl],
        ...["--node-cert", mnCert.certFile, "--node-key", mnCert.keyFile, "--peer-ca", pki.caFile],
        ...["--data-dir", path.join(dir, "cli")],
      ]);
      assert.equal(registered.code, 0, registered.stderr);
      assert.match(registered.stdout, /registered .*pending approval/);
      const approved = await runCli([
        ...["node", "approve", MN_ID, "--cn", cn.baseUrl],
        ...["--node-cert", pki.users.admin.certFile, "--node-key", pki.users.admin.keyFile],
        ...["--peer-ca", pki.caFile, "--data-dir", path.join(dir, "cli")],
      ]);
      assert.equal(approved.code, 0, approved.stderr);
      // Registering again updates the capabilities; the same subjects stay approved.
      const again = await runCli([
        ...["register", "--cn", cn.baseUrl, "--node-url", mn.baseUrl],
        ...["--node-cert", mnCert.certFile, "--node-key", mnCert.keyFile, "--peer-ca", pki.caFile],
        ...["--data-dir", path.join(dir, "cli")],
      ]);
      assert.equal(again.code, 0, again.stderr);
      assert.match(again.stdout, /already registered; capabilities updated .*: approved\n$/);

      const pid = `certonly-${Date.now()}`;
      const bytes = Buffer.from(`a,b\n${pid},1\n`);
      const body = form({
        pid,
        object: bytes,
        sysmeta: { xml: sysmetaXml(pid, bytes, { rightsHolder: USERS.admin }) },
      });
      const admin = { ca, cert: pki.users.admin };
      const created = await tlsCall({ ...admin, baseUrl: `${mn.baseUrl}/v2` }, "POST", "/object", body);
      assert.equal(created.status, 200, created.body);
      await eventually("the CN holds the object", async () => {
        const meta = await tlsCall({ ...admin, baseUrl: `${cn.baseUrl}/v2` }, "GET", `/meta/${pid}`);
        return meta.status === 200 && meta.body.includes(`<authoritativeMemberNode>${MN_ID}<`)
          ? true
          : undefined;
      });

      // The MN trusts the CN's certificate for CN-only calls, from the CN's listNodes (no --cn-subject).
      const notice = form({ id: pid, serialVersion: "1", dateSysMetaLastModified: new Date().toISOString() });
      const changed = await tlsCall(
        { baseUrl: `${mn.baseUrl}/v2`, ca, cert: cnCert },
        "POST",
        "/dirtySystemMetadata",
        notice,
      );
      assert.equal(changed.status, 200, changed.body);
    });
  });
}
