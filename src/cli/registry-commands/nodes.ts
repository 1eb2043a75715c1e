/**
 * `d1node node list|approve|reject|remove`: the Coordinating Node's registry. Nodes registered through
 * CNRegister.register stay pending (not listed, not resolvable) until an administrator approves them; `reject`
 * removes a pending registration, `remove` any node. With `--cn URL` the running CN does it (its admin endpoint,
 * `{basePath}/admin/nodes`; the caller must be one of its administrators: `--token`, a client certificate, or,
 * run with the CN's own data folder, a token that folder's key signs for the CN itself). Without `--cn` the
 * database is opened directly: with SQLite only while the CN is stopped (it holds the file alone); PostgreSQL
 * any time. Neither way starts a new data folder.
 */
import type { Command } from "commander";
import type { Config } from "../../config/config.ts";
import type { Database } from "../../db/types.ts";
import { approveNode, removeNode } from "../../services/cn/register.ts";
import { parseNode } from "../../types/index.ts";
import { requireEmbeddedDatabase } from "../data-folder.ts";
import { openConfiguredDatabase } from "../offline-database.ts";
import { OperatorError } from "../operator-error.ts";
import {
  addCommonOptions,
  addPeerOptions,
  type CommonFlags,
  configFromFlags,
  type PeerFlags,
} from "../options.ts";
import { peerSettings } from "./register.ts";
import { callRunningNode } from "./remote.ts";

interface NodeFlags extends CommonFlags, PeerFlags {
  cn?: string;
}

interface Entry {
  nodeId: string;
  approved: boolean;
  baseUrl: string;
  state?: string;
  pendingSubjects?: string[];
}

async function withDatabase<T>(config: Readonly<Config>, work: (db: Database) => Promise<T>): Promise<T> {
  let db: Database;
  requireEmbeddedDatabase(config);
  try {
    db = await openConfiguredDatabase(config);
  } catch (error) {
    const locked = error instanceof Error && /locked|busy/i.test(error.message);
    throw new OperatorError(
      locked
        ? "the CN's database is in use by the running CN: add --cn <its base URL> to ask the CN itself"
        : `cannot open the CN's database: ${error instanceof Error ? error.message : String(error)}`,
    );
  }
  try {
    return await work(db);
  } catch (error) {
    if (error instanceof Error && /locked|busy/i.test(error.message))
      throw new OperatorError("the CN's database is in use by the running CN: add --cn <its base URL>");
    throw error;
  } finally {
    await db.close();
  }
}

const settingsOf = (flags: NodeFlags) =>
  configFromFlags(flags as NodeFlags & Record<string, unknown>, { ...peerSettings(flags), role: "cn" });

async function remote(
  config: Readonly<Config>,
  flags: NodeFlags,
  method: "GET" | "PUT" | "DELETE",
  route: string,
) {
  const cn = (flags.cn as string).replace(/\/+$/, "");
  const url = `${cn}/admin/nodes${route}`;
  const signed = !flags.token && !(config.nodeCert && cn.startsWith("https:"));
  const answer = await callRunningNode(config, {
    method,
    url,
    token: flags.token,
    localSubject: signed ? await cnSubject(config, cn) : undefined,
  });
  if (answer.status !== 200) throw new OperatorError(`the CN refused: ${answer.failure}`, 1);
  return answer.body;
}

/** The CN's own subject, from its public Node document (CNCore.getCapabilities): a token for it signed by its data folder's key. */
async function cnSubject(config: Readonly<Config>, cn: string): Promise<string> {
  const answer = await callRunningNode(config, { method: "GET", url: `${cn}/v2/`, anonymous: true });
  if (answer.status !== 200)
    throw new OperatorError(`${cn} did not give its Node document: ${answer.failure}`);
  const subject = parseNode(answer.body).subjects[0];
  if (!subject) throw new OperatorError(`${cn}'s Node document names no subject`);
  return subject;
}

const command = (parent: Command, spec: string, description: string) =>
  addPeerOptions(addCommonOptions(parent.command(spec).description(description))).option(
    "--cn <url>",
    "the running CN's base URL: ask it rather than open its database",
  );

export function registerNodeCommands(program: Command): void {
  const node = program.command("node").description("the Coordinating Node's node registry");
  command(node, "list", "list registered nodes, whether each is approved, and its state").action(
    async (flags: NodeFlags) => {
      const config = settingsOf(flags);
      const entries: Entry[] = flags.cn
        ? (JSON.parse(await remote(config, flags, "GET", "")) as Entry[])
        : await withDatabase(config, (db) => db.cn.nodes({ approvedOnly: false }));
      for (const n of entries) {
        const state = n.state ? `\t${n.state}` : "";
        const asked = n.pendingSubjects
          ? `\tnew subjects await approval: ${n.pendingSubjects.join("; ")}`
          : "";
        process.stdout.write(
          `${n.nodeId}\t${n.approved ? "approved" : "pending"}\t${n.baseUrl}${state}${asked}\n`,
        );
      }
    },
  );
  command(node, "approve <nodeId>", "approve a pending node: listNodes and resolve show it").action(
    async (nodeId: string, flags: NodeFlags) => {
      const config = settingsOf(flags);
      if (flags.cn) await remote(config, flags, "PUT", `/${encodeURIComponent(nodeId)}/approval`);
      else if (!(await withDatabase(config, (db) => approveNode(db, nodeId))))
        throw new OperatorError(`no node ${nodeId} is registered`, 1);
      process.stdout.write(`approved ${nodeId}\n`);
    },
  );
  const removal = (spec: string, description: string, pendingOnly: boolean, done: string) =>
    command(node, spec, description).action(async (nodeId: string, flags: NodeFlags) => {
      const config = settingsOf(flags);
      const route = `/${encodeURIComponent(nodeId)}${pendingOnly ? "?pending=true" : ""}`;
      if (flags.cn) await remote(config, flags, "DELETE", route);
      else if (!(await withDatabase(config, (db) => removeNode(db, nodeId, pendingOnly))))
        throw new OperatorError(`no ${pendingOnly ? "pending " : ""}node ${nodeId} is registered`, 1);
      process.stdout.write(`${done} ${nodeId}\n`);
    });
  removal("reject <nodeId>", "reject a pending registration: the node's entry is removed", true, "rejected");
  removal(
    "remove <nodeId>",
    "remove a node (approved or not): it leaves listNodes and is no longer pinged",
    false,
    "removed",
  );
}
