/**
 * `d1node object show|set-access|archive|delete PID --node URL`: an object of a running Member or Coordinating
 * Node, through the node's DataONE API as the caller the credentials name (`--token-file`, or `--cert` and
 * `--key`), so the node authorizes each as it would any client (object-calls.ts). `show` needs no credentials
 * for a public object. `archive` and `delete` cannot be undone and ask for `--yes`. Exit code 0 done, 1 the node
 * refused (NotAuthorized, InvalidRequest...), 2 the command could not run (no such object, bad flags, node out
 * of reach); each failure is one line.
 */
import { readFileSync } from "node:fs";
import type { Command } from "commander";
import { OperatorError } from "../operator-error.ts";
import { type Credentials, credentialsOf } from "../upload/upload.ts";
import { addConnectionOptions } from "../upload/upload-command.ts";
import { type AccessFlags, accessEditOf, applyAccessEdit, samePolicy } from "./access-edit.ts";
import {
  archiveObject,
  changeAccessPolicy,
  deleteObject,
  type ObjectTarget,
  reachNode,
  readSystemMetadata,
} from "./object-calls.ts";
import { systemMetadataText } from "./sysmeta-text.ts";

interface ObjectFlags extends AccessFlags {
  node: string;
  tokenFile?: string;
  cert?: string;
  key?: string;
  ca?: string;
  xml?: boolean;
  yes?: boolean;
}

const repeat = (value: string, previous: string[] = []) => [...previous, value];

/** One `object` sub-command with the flags every one takes. */
function objectCommand(parent: Command, name: string, description: string): Command {
  return addConnectionOptions(
    parent
      .command(name)
      .description(description)
      .argument("<pid>", "the object's identifier (for show: or a series identifier)")
      .requiredOption(
        "--node <url>",
        "the node's base URL (without /v1 or /v2), e.g. https://mn.example.org/mn or https://cn.example.org/cn",
      ),
  );
}

/** The node and the caller; `anonymous` allows no credentials at all (a public object's `show`). */
async function targetOf(flags: ObjectFlags, anonymous = false): Promise<ObjectTarget> {
  let url: URL;
  try {
    url = new URL(flags.node);
  } catch {
    throw new OperatorError(
      `--node must be a base URL such as https://mn.example.org/mn, not "${flags.node}"`,
    );
  }
  if (url.protocol !== "http:" && url.protocol !== "https:")
    throw new OperatorError("--node must be http or https");
  const given = flags.tokenFile !== undefined || flags.cert !== undefined || flags.key !== undefined;
  const credentials: Credentials =
    anonymous && !given
      ? { tokenFile: undefined, tls: flags.ca ? { ca: readCa(flags.ca) } : {} }
      : credentialsOf(flags);
  return reachNode(flags.node, credentials);
}

function readCa(file: string): Buffer {
  try {
    return readFileSync(file);
  } catch (error) {
    throw new OperatorError(`cannot read ${file}: ${(error as Error).message}`);
  }
}

function requireYes(flags: ObjectFlags, what: string): void {
  if (!flags.yes) throw new OperatorError(`${what} cannot be undone: add --yes to go ahead`);
}

export function registerObjectCommands(program: Command): void {
  const object = program
    .command("object")
    .description("an object of a running node: show its system metadata, change its access, archive, delete");

  objectCommand(object, "show", "print the object's system metadata (readable; --xml: the document)")
    .option("--xml", "the system metadata document as the node sends it")
    .action(async (pid: string, flags: ObjectFlags) => {
      const target = await targetOf(flags, true);
      const { xml, sysmeta } = await readSystemMetadata(target, pid);
      process.stdout.write(flags.xml ? (xml.endsWith("\n") ? xml : `${xml}\n`) : systemMetadataText(sysmeta));
    });

  objectCommand(
    object,
    "set-access",
    "change the object's access policy (Member Node: updateSystemMetadata; Coordinating Node: setAccessPolicy)",
  )
    .option("--public", "anyone may read the object")
    .option("--deny-public", "take the subject public out of the policy (the object is no longer public)")
    .option(
      "--allow <subject=permission>",
      "allow a subject read, write or changePermission (repeatable)",
      repeat,
    )
    .option("--revoke <subject>", "take a subject out of the policy (repeatable)", repeat)
    .action(async (pid: string, flags: ObjectFlags) => {
      const edit = accessEditOf(flags);
      const target = await targetOf(flags);
      const { sysmeta } = await readSystemMetadata(target, pid);
      const rules = applyAccessEdit(sysmeta.accessPolicy, edit);
      if (samePolicy(rules, sysmeta.accessPolicy)) {
        process.stderr.write(`the access policy of ${sysmeta.identifier} already says so: unchanged\n`);
        return;
      }
      await changeAccessPolicy(target, sysmeta, rules);
      const { sysmeta: changed } = await readSystemMetadata(target, sysmeta.identifier);
      process.stdout.write(
        systemMetadataText(changed)
          .split("\n")
          .filter((line) => line.startsWith("access "))
          .join("\n")
          .concat("\n"),
      );
      process.stderr.write(`access policy of ${sysmeta.identifier} changed\n`);
    });

  objectCommand(
    object,
    "archive",
    "archive the object: no longer searched or listed, still readable by its identifier",
  )
    .option("--yes", "go ahead (archiving cannot be undone)")
    .action(async (pid: string, flags: ObjectFlags) => {
      requireYes(flags, "archiving");
      const target = await targetOf(flags);
      await archiveObject(target, pid);
      process.stdout.write(`archived ${pid}\n`);
    });

  objectCommand(object, "delete", "delete the object and its bytes (the node's administrators alone)")
    .option("--yes", "go ahead (deleting cannot be undone)")
    .action(async (pid: string, flags: ObjectFlags) => {
      requireYes(flags, "deleting");
      const target = await targetOf(flags);
      await deleteObject(target, pid);
      process.stdout.write(`deleted ${pid}\n`);
    });
}
