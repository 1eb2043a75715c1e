/**
 * `d1node federation`: a Coordinating Node and Member Nodes on this machine, in one process, registered and
 * approved; prints each node's URL and a token that every node accepts for the federation's administrator.
 */
import path from "node:path";
import type { Command } from "commander";
import { postgresDatabasePerNode } from "../federation/postgres-per-node.ts";
import { startFederation } from "../node/local-federation.ts";

interface FederationFlags {
  dir: string;
  mns: string;
  basePort: string;
  host: string;
  postgres?: string;
  logLevel: string;
}

export function registerFederationCommand(program: Command): void {
  program
    .command("federation")
    .description("run a local federation: one Coordinating Node and Member Nodes, registered and approved")
    .option("--dir <folder>", "data folder, one sub-folder per node", "d1node-federation")
    .option("--mns <count>", "number of Member Nodes", "3")
    .option("--base-port <port>", "the CN's port; Member Node i listens on base + i (0: free ports)", "8180")
    .option("-H, --host <host>", "address to listen on", "127.0.0.1")
    .option(
      "--postgres <url>",
      "PostgreSQL server URL: one database per node (<database>_cn, <database>_mn1, ...)",
    )
    .option("--log-level <level>", "fatal, error, warn, info, debug", "warn")
    .action(async (flags: FederationFlags) => {
      const mnCount = Number(flags.mns);
      const basePort = Number(flags.basePort);
      if (!Number.isInteger(mnCount) || mnCount < 1 || mnCount > 20)
        throw new Error("--mns: a number from 1 to 20");
      if (!Number.isInteger(basePort) || basePort < 0 || basePort > 65_000)
        throw new Error("--base-port: a port");
      const federation = await startFederation({
        dir: path.resolve(flags.dir),
        mnCount,
        basePort,
        host: flags.host,
        logLevel: flags.logLevel,
        // A line per start-up step on standard error (migrations and a first index can take a while).
        onStep: (step) => process.stderr.write(`federation: ${step}\n`),
        // The Member Nodes take replicas from each other, as the CN directs.
        ...(flags.postgres ? { databaseUrl: postgresDatabasePerNode(flags.postgres) } : {}),
      });
      const { cn, mns } = federation;
      // Handlers first: whoever reads the lines below may signal at once.
      const stop = async () => {
        await federation.close();
        process.exit(0);
      };
      process.once("SIGINT", stop);
      process.once("SIGTERM", stop);
      process.stdout.write(`d1node CN ${cn.ctx.config.nodeId} serving ${cn.baseUrl}\n`);
      for (const mn of mns) process.stdout.write(`d1node MN ${mn.ctx.config.nodeId} serving ${mn.baseUrl}\n`);
      process.stdout.write(`administrator ${federation.adminSubject}\n`);
      process.stdout.write(`token ${await federation.token(federation.adminSubject, 86_400)}\n`);
    });
}
