/**
 * `d1node register --cn URL`: the Member Node registers itself with a Coordinating Node. The Node document is
 * built from the node's settings (or taken from the running node with `--node-url`); CNRegister.register
 * ("POST /node"), or CNRegister.updateNodeCapabilities ("PUT /node/{nodeId}") when the CN already knows the
 * node; the call carries the node certificate (over https) or `--token`. Prints what the CN answered: pending
 * approval, approved, or refused and why (exit 1).
 */
import { existsSync } from "node:fs";
import type { Command } from "commander";
import { FormData } from "undici";
import { signingKeyPath } from "../../auth/keys.ts";
import { sendsNodeToken } from "../../auth/node-credentials.ts";
import type { NodeContext } from "../../context/node-context.ts";
import { capabilities } from "../../services/mn/core.ts";
import { parseNode, serializeNode } from "../../types/index.ts";
import type { Node } from "../../types/node.ts";
import { warnAboutNodeCertificate } from "../identity-commands/certificate-warning.ts";
import { OperatorError } from "../operator-error.ts";
import {
  addCommonOptions,
  addPeerOptions,
  type CommonFlags,
  configFromFlags,
  type PeerFlags,
} from "../options.ts";
import { callRunningNode } from "./remote.ts";

interface RegisterFlags extends CommonFlags, PeerFlags {
  cn: string;
  nodeUrl?: string;
  nodeId?: string;
  baseUrl?: string;
  nodeSubject?: string;
}

export function registerRegisterCommand(program: Command): void {
  addPeerOptions(
    addCommonOptions(
      program.command("register").description("register this Member Node with a Coordinating Node"),
    ),
  )
    .requiredOption("--cn <url>", "the Coordinating Node's base URL (e.g. https://cn.dataone.org/cn)")
    .option("--node-url <url>", "take the Node document from the running node at this base URL")
    .option("--node-id <urn>", "node identifier (env: D1NODE_NODE_ID)")
    .option("--base-url <url>", "the node's public base URL (env: D1NODE_BASE_URL)")
    .option("--node-subject <subject>", "the node's subject (env: D1NODE_NODE_SUBJECT)")
    .action(async (flags: RegisterFlags) => {
      const config = configFromFlags(flags as RegisterFlags & Record<string, unknown>, {
        ...(flags.nodeId ? { nodeId: flags.nodeId } : {}),
        ...(flags.baseUrl ? { baseUrl: flags.baseUrl } : {}),
        ...(flags.nodeSubject ? { nodeSubject: flags.nodeSubject } : {}),
        ...peerSettings(flags),
      });
      const cn = flags.cn.replace(/\/+$/, "");
      // Without --token or a certificate the call carries the node's own token, signed with the data folder's
      // key: a folder without one is not the node's (a key made now would be one no one trusts).
      if (!flags.token && sendsNodeToken(config, cn) && !existsSync(signingKeyPath(config.dataDir))) {
        throw new OperatorError(
          `nothing to register with: ${config.dataDir} holds no node signing key; give --token, ` +
            "--node-cert and --node-key, or the node's --data-dir",
        );
      }
      const node = flags.nodeUrl
        ? await runningNode(config, flags.nodeUrl)
        : capabilities({ config } as NodeContext);
      const body = () => {
        const form = new FormData();
        form.append("node", new File([serializeNode(node, "v2")], "node.xml", { type: "text/xml" }));
        return form;
      };
      warnAboutNodeCertificate({ ...config, nodeId: node.identifier }, node.baseURL);
      const id = node.identifier;
      let verb = "registered";
      let answer = await callRunningNode(config, {
        method: "POST",
        url: `${cn}/v2/node`,
        body: body(),
        token: flags.token,
      });
      if (answer.failure.startsWith("IdentifierNotUnique")) {
        verb = "already registered; capabilities updated";
        const url = `${cn}/v2/node/${encodeURIComponent(id)}`;
        answer = await callRunningNode(config, { method: "PUT", url, body: body(), token: flags.token });
      }
      if (answer.status !== 200) throw new OperatorError(`the CN refused ${id}: ${answer.failure}`, 1);
      // getNodeCapabilities answers for approved nodes only.
      const check = await callRunningNode(config, {
        method: "GET",
        url: `${cn}/v2/node/${encodeURIComponent(id)}`,
        token: flags.token,
      });
      // A change of an approved node's subjects waits for the administrators too; the CN keeps the old ones.
      const inForce = check.status === 200 ? parseNode(check.body).subjects : [];
      const state =
        check.status !== 200
          ? "pending approval by the CN's administrators"
          : node.subjects.every((s) => inForce.includes(s))
            ? "approved"
            : `approved; the new subjects await approval by the CN's administrators (in force: ${inForce.join("; ")})`;
      process.stdout.write(`${id} ${verb} with ${cn} as ${node.subjects.join("; ")}: ${state}\n`);
    });
}

export function peerSettings(flags: PeerFlags) {
  return {
    ...(flags.nodeCert ? { nodeCert: flags.nodeCert } : {}),
    ...(flags.nodeKey ? { nodeKey: flags.nodeKey } : {}),
    ...(flags.peerCa ? { peerCa: flags.peerCa } : {}),
  };
}

async function runningNode(config: Parameters<typeof callRunningNode>[0], url: string): Promise<Node> {
  // getCapabilities is public: asked anonymously, so that nothing is read from or made in a data folder.
  const answer = await callRunningNode(config, {
    method: "GET",
    url: `${url.replace(/\/+$/, "")}/v2/node`,
    anonymous: true,
  });
  if (answer.status !== 200)
    throw new OperatorError(`${url} did not give its Node document: ${answer.failure}`);
  return parseNode(answer.body);
}
