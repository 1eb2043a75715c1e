/**
 * A whole federation on one machine, in one process: a Coordinating Node and Member Nodes, each with its own
 * data folder (and database), every node trusting the others' signing keys, the MNs registered with the CN (as
 * themselves, through CNRegister.register) and approved, and the administrator an account on the CN (so
 * CNIdentity.getSubjectInfo knows the subject the printed token names). `d1node federation` and the federation
 * tests use it.
 */
import { mkdir, writeFile } from "node:fs/promises";
import path from "node:path";
import { loadOrCreateSigningKey } from "../auth/keys.ts";
import { mintToken } from "../auth/tokens.ts";
import { type ConfigInput, resolveConfig } from "../config/config.ts";
import { approveNode } from "../services/cn/register.ts";
import { capabilities } from "../services/mn/core.ts";
import { serializeNode } from "../types/index.ts";
import { serializePerson } from "../types/xml-documents/subject-xml.ts";
import { type RunningNode, startNode } from "./start.ts";

export interface FederationOptions {
  /** Parent folder: one sub-folder per node ("cn", "mn1", "mn2", ...). */
  dir: string;
  mnCount?: number;
  host?: string;
  /** The CN listens on this port and MN i on basePort + i; 0 (the default) picks free ports. */
  basePort?: number;
  /** The database of a node by name; SQLite in the node's folder when undefined. */
  databaseUrl?: (name: string) => Promise<string | undefined>;
  /** Further settings of a node by name (schedules, replication willingness, ...). */
  settings?: (name: string) => ConfigInput;
  logLevel?: string | false;
  /** Run background tasks in the nodes (default true). */
  worker?: boolean;
  /** Told each start-up step as it is done (`d1node federation` prints them). */
  onStep?: (step: string) => void;
}

export interface Federation {
  cn: RunningNode;
  mns: RunningNode[];
  /** An administrator of every node. */
  adminSubject: string;
  /** A token every node accepts (signed with the CN's key, which all nodes trust). */
  token(subject: string, ttlSeconds?: number): Promise<string>;
  close(): Promise<void>;
}

export const FEDERATION_ADMIN = "CN=federation administrator,DC=dataone,DC=org";

const nodeId = (name: string) => `urn:node:LOCAL${name.toUpperCase()}`;
const nodeSubject = (name: string) => `CN=${nodeId(name)},DC=dataone,DC=org`;

export async function startFederation(options: FederationOptions): Promise<Federation> {
  const names = ["cn", ...Array.from({ length: options.mnCount ?? 3 }, (_, i) => `mn${i + 1}`)];
  const keyFiles = new Map<string, string>();
  await mkdir(path.join(options.dir, "keys"), { recursive: true });
  for (const name of names) {
    const dataDir = path.join(options.dir, name);
    await mkdir(dataDir, { recursive: true });
    const { publicKey } = loadOrCreateSigningKey(dataDir);
    const file = path.join(options.dir, "keys", `${name}.pem`);
    await writeFile(file, publicKey.export({ type: "spki", format: "pem" }));
    keyFiles.set(name, file);
  }
  const step = options.onStep ?? (() => undefined);
  step(`signing keys ready for ${names.length} nodes in ${options.dir}`);

  const started: RunningNode[] = [];
  const start = async (name: string, index: number, layer: ConfigInput) => {
    const databaseUrl = await options.databaseUrl?.(name);
    const config = resolveConfig({
      host: options.host ?? "127.0.0.1",
      port: options.basePort ? options.basePort + index : 0,
      dataDir: path.join(options.dir, name),
      nodeId: nodeId(name),
      nodeName: `Local ${name.toUpperCase()}`,
      nodeDescription: `${name === "cn" ? "Coordinating" : "Member"} Node of a local d1node federation`,
      nodeSubject: nodeSubject(name),
      contactSubject: FEDERATION_ADMIN,
      adminSubjects: [FEDERATION_ADMIN],
      cnSubjects: [nodeSubject("cn")],
      trustedTokenKeys: names.filter((other) => other !== name).map((other) => keyFiles.get(other) as string),
      ...(databaseUrl ? { databaseUrl } : {}),
      ...(options.logLevel ? { logLevel: options.logLevel } : {}),
      ...layer,
      ...options.settings?.(name),
    });
    const node = await startNode(config, {
      ...(options.logLevel !== undefined ? { logLevel: options.logLevel } : {}),
      ...(options.worker === false ? { worker: false } : {}),
    });
    started.push(node);
    return node;
  };

  try {
    const cn = await start("cn", 0, { role: "cn", basePath: "/cn" });
    step(`started ${cn.ctx.config.nodeId} (1 / ${names.length})`);
    const mns: RunningNode[] = [];
    for (const [i, name] of names.slice(1).entries()) {
      const mn = await start(name, i + 1, {
        role: "mn",
        basePath: "/mn",
        cnBaseUrl: cn.baseUrl,
        replicate: true, // every Member Node takes replicas
      });
      await registerWith(cn, mn);
      mns.push(mn);
      step(`started ${mn.ctx.config.nodeId}, registered and approved (${i + 2} / ${names.length})`);
    }
    const { privateKey } = loadOrCreateSigningKey(cn.ctx.config.dataDir);
    await registerAdministrator(
      cn,
      await mintToken(privateKey, { subject: FEDERATION_ADMIN, ttlSeconds: 600 }),
    );
    step("administrator account ready on the CN");
    return {
      cn,
      mns,
      adminSubject: FEDERATION_ADMIN,
      token: (subject, ttlSeconds) =>
        mintToken(privateKey, { subject, ...(ttlSeconds ? { ttlSeconds } : {}) }),
      close: () => closeAll(started),
    };
  } catch (error) {
    await closeAll(started);
    throw error;
  }
}

/**
 * CNIdentity.registerAccount as the administrator itself, then verifyAccount (an administrator may verify). An
 * account kept from an earlier run of the same federation is left as it is.
 */
async function registerAdministrator(cn: RunningNode, token: string): Promise<void> {
  if (await cn.ctx.db.cn.account(FEDERATION_ADMIN)) return;
  const headers = { authorization: `Bearer ${token}` };
  const person = serializePerson({
    subject: FEDERATION_ADMIN,
    givenNames: ["Federation"],
    familyName: "Administrator",
    emails: [],
    isMemberOf: [],
    equivalentIdentities: [],
  });
  const body = new FormData();
  body.append("person", new File([person], "person.xml", { type: "text/xml" }));
  const registered = await fetch(`${cn.baseUrl}/v2/accounts`, { method: "POST", headers, body });
  const verified = registered.ok
    ? await fetch(`${cn.baseUrl}/v2/accounts/verification/${encodeURIComponent(FEDERATION_ADMIN)}`, {
        method: "PUT",
        headers,
      })
    : registered;
  if (!verified.ok) {
    throw new Error(
      `registering the administrator's account with the CN failed: HTTP ${verified.status} ${await verified.text()}`,
    );
  }
}

/** Member Nodes first, so that none is left calling a CN that is gone. */
async function closeAll(nodes: RunningNode[]): Promise<void> {
  for (const node of [...nodes].reverse()) await node.close();
}

/**
 * CNRegister.register as the MN itself (its own token), then the administrator's approval. A node registered
 * by an earlier run of the same federation is kept.
 */
async function registerWith(cn: RunningNode, mn: RunningNode): Promise<void> {
  const id = mn.ctx.config.nodeId;
  const known = await cn.ctx.db.cn.node(id);
  if (!known) {
    const { privateKey } = loadOrCreateSigningKey(mn.ctx.config.dataDir);
    const token = await mintToken(privateKey, { subject: mn.ctx.config.nodeSubject, ttlSeconds: 600 });
    const body = new FormData();
    const xml = serializeNode(capabilities(mn.ctx), "v2");
    body.append("node", new File([xml], "node.xml", { type: "text/xml" }));
    const response = await fetch(`${cn.baseUrl}/v2/node`, {
      method: "POST",
      headers: { authorization: `Bearer ${token}` },
      body,
    });
    if (!response.ok) {
      throw new Error(
        `registering ${id} with the CN failed: HTTP ${response.status} ${await response.text()}`,
      );
    }
  }
  if (!known?.approved) await approveNode(cn.ctx.db, id);
}
