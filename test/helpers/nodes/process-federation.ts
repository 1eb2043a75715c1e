/**
 * A federation as it runs on separate machines, for tests that need every node in its own OS process: a CN and
 * Member Nodes, each a `d1node serve` with its own node certificate (from a test CA), over mutual TLS. The MNs
 * register themselves (`d1node register`) and the administrator approves them on the running CN
 * (`d1node node approve --cn`), as docs/federation.md describes.
 */
import { readFile } from "node:fs/promises";
import path from "node:path";
import type { TlsCaller } from "../clients/tls-client.ts";
import { createTestPki, type Issued, type TestPki, USERS } from "../data/pki.ts";
import { runCli } from "./cli.ts";
import { type NodeProcess, spawnNode } from "./process-node.ts";

export interface ProcessFederation {
  pki: TestPki;
  /** The test CA (PEM), for callers' trust. */
  ca: string;
  cn: NodeProcess;
  mns: NodeProcess[];
  /** The CN's v2 API as its administrator (client certificate). */
  cnAdmin: TlsCaller;
  /** A Member Node's v2 API as the administrator. */
  mnAdmin(i: number): TlsCaller;
  /** Every node process, for sampling their memory. */
  processes(): NodeProcess[];
  close(): Promise<void>;
}

export const subjectOfNode = (id: string): string => `CN=${id},DC=dataone,DC=org`;

/**
 * A CN `urn:node:<prefix>CN` and `mnCount` MNs `urn:node:<prefix>MN<i>`, their data folders under `dir`,
 * every MN registered and approved. `env`: D1NODE_* settings of every node.
 */
export async function startProcessFederation(
  dir: string,
  prefix: string,
  mnCount: number,
  env: Record<string, string> = {},
): Promise<ProcessFederation> {
  const pki = createTestPki();
  const ca = await readFile(pki.caFile, "utf8");
  const started: NodeProcess[] = [];
  const close = async () => {
    for (const node of started) await node.kill();
    pki.close();
  };
  const argsOf = (id: string, cert: Issued) => [
    ...["--node-id", id, "--data-dir", path.join(dir, id.slice(9))],
    ...["--tls-cert", cert.certFile, "--tls-key", cert.keyFile, "--client-ca", pki.caFile],
    ...["--node-cert", cert.certFile, "--node-key", cert.keyFile, "--peer-ca", pki.caFile],
    ...["--admin-subject", USERS.admin],
  ];
  try {
    const cnId = `urn:node:${prefix}CN`;
    const cn = await spawnNode([...argsOf(cnId, pki.node(cnId)), "--role", "cn"], env);
    started.push(cn);
    const mns: NodeProcess[] = [];
    for (let i = 1; i <= mnCount; i++) {
      const id = `urn:node:${prefix}MN${i}`;
      const cert = pki.node(id);
      const mn = await spawnNode(
        [...argsOf(id, cert), "--cn-base-url", cn.baseUrl, "--cn-subject", subjectOfNode(cnId)],
        env,
      );
      started.push(mn);
      mns.push(mn);
      const tls = ["--peer-ca", pki.caFile, "--data-dir", path.join(dir, "cli")];
      const registered = await runCli([
        ...["register", "--cn", cn.baseUrl, "--node-url", mn.baseUrl],
        ...["--node-cert", cert.certFile, "--node-key", cert.keyFile, ...tls],
      ]);
      if (registered.code !== 0) throw new Error(`register ${id}: ${registered.stderr}`);
      const approved = await runCli([
        ...["node", "approve", id, "--cn", cn.baseUrl],
        ...["--node-cert", pki.users.admin.certFile, "--node-key", pki.users.admin.keyFile, ...tls],
      ]);
      if (approved.code !== 0) throw new Error(`approve ${id}: ${approved.stderr}`);
    }
    const caller = (baseUrl: string): TlsCaller => ({ baseUrl: `${baseUrl}/v2`, ca, cert: pki.users.admin });
    return {
      pki,
      ca,
      cn,
      mns,
      cnAdmin: caller(cn.baseUrl),
      mnAdmin: (i) => caller((mns[i] as NodeProcess).baseUrl),
      processes: () => [...started],
      close,
    };
  } catch (error) {
    await close();
    throw error;
  }
}
