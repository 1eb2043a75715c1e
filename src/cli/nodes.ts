/**
 * `d1node node list` and `d1node node approve <nodeId>`: the Coordinating Node's registry. Nodes registered
 * through CNRegister.register stay pending (not listed, not resolvable) until an administrator approves them.
 * With the embedded SQLite database the CN holds an exclusive lock: run these while it is stopped (PostgreSQL:
 * any time).
 */
import path from "node:path";
import type { Command } from "commander";
import { openDatabase } from "../db/open.ts";
import type { Database } from "../db/types.ts";
import { approveNode } from "../services/cn/register.ts";
import { addCommonOptions, type CommonFlags, configFromFlags } from "./options.ts";

async function withDatabase<T>(flags: CommonFlags, work: (db: Database) => Promise<T>): Promise<T> {
  const config = configFromFlags(flags as CommonFlags & Record<string, unknown>);
  const db = await openDatabase(
    config.databaseUrl
      ? { url: config.databaseUrl }
      : { sqlitePath: path.join(config.dataDir, "d1node.sqlite") },
  );
  try {
    return await work(db);
  } finally {
    await db.close();
  }
}

export function registerNodeCommands(program: Command): void {
  const node = program.command("node").description("the Coordinating Node's node registry");
  addCommonOptions(
    node.command("list").description("list registered nodes and whether each is approved"),
  ).action(async (flags: CommonFlags) => {
    await withDatabase(flags, async (db) => {
      for (const n of await db.cn.nodes({ approvedOnly: false })) {
        process.stdout.write(`${n.nodeId}\t${n.approved ? "approved" : "pending"}\t${n.baseUrl}\n`);
      }
    });
  });
  addCommonOptions(
    node.command("approve <nodeId>").description("approve a pending node: listNodes and resolve show it"),
  ).action(async (nodeId: string, flags: CommonFlags) => {
    const found = await withDatabase(flags, (db) => approveNode(db, nodeId));
    if (!found) {
      process.stderr.write(`no node ${nodeId} is registered\n`);
      process.exitCode = 1;
      return;
    }
    process.stdout.write(`approved ${nodeId}\n`);
  });
}
