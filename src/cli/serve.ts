/** `d1node serve`: start a node and print the base URL it serves. */
import type { Command } from "commander";
import { type ConfigInput, configFromFile, resolveConfig } from "../config/config.ts";
import { lowDiskWarning } from "../metrics/disk-warning.ts";
import { advertisedAddressWarnings } from "../node/advertised-address.ts";
import { type RunningNode, startNode } from "../node/start.ts";
import { diskSpace } from "../ops/disk-space.ts";
import { warnAboutNodeCertificate } from "./identity-commands/certificate-warning.ts";
import { addCommonOptions, type CommonFlags, configFromFlags } from "./options.ts";

interface ServeFlags extends CommonFlags {
  role?: string;
  host?: string;
  port?: string;
  basePath?: string;
  website?: string;
  baseUrl?: string;
  nodeId?: string;
  nodeSubject?: string;
  nodeCert?: string;
  nodeKey?: string;
  peerCa?: string[];
  nodeTokens?: string;
  logLevel?: string;
  logFormat?: string;
  tlsCert?: string;
  tlsKey?: string;
  clientCa?: string[];
  cnBaseUrl?: string;
  logReaders?: string;
  metrics?: string;
  metricsPort?: string;
  metricsHost?: string;
  statusPage?: string;
  also?: string[];
  nodeName?: string;
  nodeDescription?: string;
  contactSubject?: string;
  adminEmail?: string;
  replicate?: boolean;
  /** false with --no-worker. */
  worker: boolean;
}

export function registerServeCommand(program: Command): void {
  addCommonOptions(program.command("serve").description("run a node (Member Node by default)"))
    .option("--role <role>", "mn or cn (env: D1NODE_ROLE)")
    .option("-H, --host <host>", "address to listen on (env: D1NODE_HOST; default 127.0.0.1)")
    .option("-p, --port <port>", "port to listen on (env: D1NODE_PORT; default 8080; 0 picks a free one)")
    .option("--base-path <path>", "path the API is served under (env: D1NODE_BASE_PATH; default /mn)")
    .option("--base-url <url>", "public base URL, when behind a proxy (env: D1NODE_BASE_URL)")
    .option("--node-id <urn>", "node identifier, urn:node:... (env: D1NODE_NODE_ID)")
    .option(
      "--node-subject <subject>",
      "the node's subject (env: D1NODE_NODE_SUBJECT; default: the node certificate's DN, else CN=<node id>,DC=dataone,DC=org)",
    )
    .option(
      "--node-cert <file>",
      "the node's client certificate (PEM), presented in its calls to other nodes (env: D1NODE_NODE_CERT)",
    )
    .option("--node-key <file>", "the node certificate's private key (PEM) (env: D1NODE_NODE_KEY)")
    .option(
      "--peer-ca <file...>",
      "CA bundle(s) other nodes' server certificates must chain to (env: D1NODE_PEER_CA; default: system CAs)",
    )
    .option(
      "--node-tokens <when>",
      "send the node's bearer token to other nodes: auto (when no certificate is presented), always, never",
    )
    .option("--node-name <name>", "the node's name in its Node document (env: D1NODE_NODE_NAME)")
    .option("--node-description <text>", "the node's description (env: D1NODE_NODE_DESCRIPTION)")
    .option(
      "--contact-subject <subject>",
      "the subject of the person to contact about the node (env: D1NODE_CONTACT_SUBJECT)",
    )
    .option(
      "--admin-email <address>",
      "the administrator's e-mail address, for OAI-PMH (env: D1NODE_ADMIN_EMAIL)",
    )
    .option("--replicate", "Member Node: accept replicas from other nodes (env: D1NODE_REPLICATE=true)")
    .option("--log-level <level>", "fatal, error, warn, info, debug (env: D1NODE_LOG_LEVEL)")
    .option(
      "--log-format <format>",
      "text (readable lines, the default) or json (one JSON object per line) (env: D1NODE_LOG_FORMAT)",
    )
    .option("--tls-cert <file>", "server certificate (PEM): listen with HTTPS (env: D1NODE_TLS_CERT)")
    .option("--tls-key <file>", "server private key (PEM) (env: D1NODE_TLS_KEY)")
    .option("--client-ca <file...>", "CA bundle(s) client certificates must chain to (env: D1NODE_CLIENT_CA)")
    .option(
      "--cn-base-url <url>",
      "Coordinating Node for group and identity lookups (env: D1NODE_CN_BASE_URL)",
    )
    .option(
      "--log-readers <who>",
      "getLogRecords for: trusted (default) or readers (env: D1NODE_LOG_READERS)",
    )
    .option(
      "--metrics <who>",
      "Prometheus metrics at <base path>/metrics: off, public or admin (default) (env: D1NODE_METRICS)",
    )
    .option(
      "--metrics-port <port>",
      "this process's own scrape target, GET /metrics on this port (env: D1NODE_METRICS_PORT; default none)",
    )
    .option("--metrics-host <address>", "the address --metrics-port listens on (default 127.0.0.1)")
    .option(
      "--status-page <who>",
      "status page at <base path>/status: off, public or admin (default) (env: D1NODE_STATUS_PAGE)",
    )
    .option(
      "--website <dir>",
      "serve this MetacatUI folder as the node's website, at / (env: D1NODE_WEBSITE)",
    )
    .option(
      "--also <file...>",
      "start one more node in this process per JSON config file (its own role, port and data folder)",
    )
    .option(
      "--no-worker",
      "run no background tasks in this process: `d1node worker` processes run them (PostgreSQL)",
    )
    .action(async (flags: ServeFlags) => {
      const extra: ConfigInput = {};
      const keys = [
        "role",
        "host",
        "port",
        "basePath",
        "baseUrl",
        "nodeId",
        "logLevel",
        "logFormat",
        "metrics",
        "metricsPort",
        "metricsHost",
        "statusPage",
        "nodeName",
        "nodeDescription",
        "contactSubject",
        "adminEmail",
        "replicate",
      ] as const;
      const node = ["nodeSubject", "nodeCert", "nodeKey", "peerCa", "nodeTokens"] as const;
      for (const key of [
        ...keys,
        ...node,
        "tlsCert",
        "tlsKey",
        "clientCa",
        "cnBaseUrl",
        "logReaders",
        "website",
      ] as const) {
        if (flags[key] !== undefined) extra[key] = flags[key];
      }
      const config = configFromFlags(flags as ServeFlags & Record<string, unknown>, extra);
      // A CN and MNs side by side: each further node comes from its own file alone (defaults <- file).
      if (!flags.worker && !config.databaseUrl) {
        // The embedded database belongs to this process alone: no worker process could open it.
        process.stderr.write("--no-worker on SQLite: no process will run this node's background tasks\n");
      }
      const configs = [config, ...(flags.also ?? []).map((file) => resolveConfig(configFromFile(file)))];
      const nodes: RunningNode[] = [];
      for (const each of configs) {
        const node = await startNode(each, { worker: flags.worker });
        nodes.push(node);
        const serving = `d1node ${each.role.toUpperCase()} ${each.nodeId} serving ${node.baseUrl}`;
        // Whatever the log level: scripts and the operator wait for this line.
        process.stdout.write(
          each.logFormat === "json"
            ? `${JSON.stringify({ level: 30, time: Date.now(), msg: serving, url: node.baseUrl })}\n`
            : `${serving}\n`,
        );
        warnAboutNodeCertificate(node.ctx.config);
        const lowDisk = lowDiskWarning(await diskSpace(node.ctx.config));
        if (lowDisk) process.stderr.write(`warning: ${lowDisk}\n`);
        for (const warning of advertisedAddressWarnings(node.ctx.config))
          process.stderr.write(`warning: ${warning}\n`);
        if (node.metricsUrl) process.stdout.write(`metrics of this process at ${node.metricsUrl}\n`);
      }
      const stop = async (signal: NodeJS.Signals) => {
        for (const node of nodes)
          node.app.log.info({ signal }, "shutting down: finishing the requests in flight");
        await Promise.all(nodes.map((node) => node.close()));
        for (const node of nodes) node.app.log.info("stopped");
        process.exit(0);
      };
      process.once("SIGINT", stop);
      process.once("SIGTERM", stop);
    });
}
