/**
 * `d1node review-link create|list|revoke --node URL`: reviewer links of a running Member Node, through its
 * `{basePath}/review-links` calls, as the caller the credentials name (`--token-file`, or `--cert` and `--key`);
 * the node decides (the dataset's rights holder, or an administrator). `create` prints the link's URL (shown
 * this once: the node keeps only a hash of its secret). Exit code 0 done, 1 the node refused, 2 the command
 * could not run (bad flags, node out of reach, no such link).
 */
import type { Command } from "commander";
import { Agent, request } from "undici";
import { parseError } from "../types/index.ts";
import { OperatorError } from "./operator-error.ts";
import { authorization, type Credentials, credentialsOf, describe } from "./upload/upload.ts";
import { addConnectionOptions } from "./upload/upload-command.ts";

interface LinkFlags {
  node: string;
  tokenFile?: string;
  cert?: string;
  key?: string;
  ca?: string;
  expires?: string;
  days?: string;
  anonymise?: boolean;
  label?: string;
  pid?: string;
}

interface LinkJson {
  id: string;
  pid: string;
  anonymise: boolean;
  label: string | null;
  expires: string;
  revoked: string | null;
  active: boolean;
}

const DAY_MS = 24 * 60 * 60 * 1000;

function linkCommand(parent: Command, name: string, description: string): Command {
  return addConnectionOptions(
    parent
      .command(name)
      .description(description)
      .requiredOption(
        "--node <url>",
        "the Member Node's base URL (without /v1 or /v2), e.g. https://mn.example.org/mn",
      ),
  );
}

export function registerReviewLinkCommands(program: Command): void {
  const links = program
    .command("review-link")
    .description("secret links that let a reviewer read one private dataset without signing in");

  linkCommand(
    links,
    "create",
    "make a reviewer link to a package (resource map) or its metadata; prints its URL",
  )
    .argument("<pid>", "the resource map's or the metadata document's identifier")
    .option("--expires <date-time>", "when the link ends, e.g. 2030-01-31T00:00:00Z (at most a year away)")
    .option("--days <n>", "the link ends this many days from now (default 30)")
    .option("--anonymise", "hide the names of creators, contacts, submitter and rights holder (EML only)")
    .option("--label <text>", "a note of whom the link is for")
    .action(async (pid: string, flags: LinkFlags) => {
      const body = {
        pid,
        ...(expiryOf(flags) ? { expires: expiryOf(flags) } : {}),
        ...(flags.anonymise ? { anonymise: true } : {}),
        ...(flags.label !== undefined ? { label: flags.label } : {}),
      };
      const made = (await send(flags, "POST", "/review-links", body)) as LinkJson & { url: string };
      process.stderr.write(
        `link ${made.id} to ${made.pid}, ends ${made.expires}; the URL is shown this once:\n`,
      );
      process.stdout.write(`${made.url}\n`);
    });

  linkCommand(links, "list", "list the reviewer links of your datasets (an administrator: every link)")
    .option("--pid <pid>", "only the links to this object")
    .action(async (flags: LinkFlags) => {
      const query = flags.pid === undefined ? "" : `?pid=${encodeURIComponent(flags.pid)}`;
      const { links: found } = (await send(flags, "GET", `/review-links${query}`)) as { links: LinkJson[] };
      for (const l of found) {
        const state = l.active
          ? `until ${l.expires}`
          : l.revoked
            ? `revoked ${l.revoked}`
            : `expired ${l.expires}`;
        const notes = [l.anonymise ? "anonymised" : "", l.label ?? ""].filter((s) => s !== "").join(", ");
        process.stdout.write(`${l.id}  ${l.pid}  ${state}${notes ? `  (${notes})` : ""}\n`);
      }
    });

  linkCommand(links, "revoke", "end a reviewer link at once")
    .argument("<id>", "the link's id (the part of its URL before the dot; `list` shows it)")
    .action(async (id: string, flags: LinkFlags) => {
      await send(flags, "DELETE", `/review-links/${encodeURIComponent(id)}`);
      process.stdout.write(`revoked ${id}\n`);
    });
}

function expiryOf(flags: LinkFlags): string | undefined {
  if (flags.expires !== undefined && flags.days !== undefined)
    throw new OperatorError("give --expires or --days, not both");
  if (flags.days === undefined) return flags.expires;
  const days = Number(flags.days);
  if (!Number.isFinite(days) || days <= 0) throw new OperatorError("--days must be a positive number");
  return new Date(Date.now() + days * DAY_MS).toISOString();
}

/** One JSON call with the caller's credentials; a DataONE exception becomes one line. */
async function send(
  flags: LinkFlags,
  method: "GET" | "POST" | "DELETE",
  path: string,
  body?: unknown,
): Promise<unknown> {
  const credentials: Credentials = credentialsOf(flags);
  const root = flags.node.replace(/\/+$/, "");
  const dispatcher = new Agent({ connect: credentials.tls });
  let status: number;
  let text: string;
  try {
    const answer = await request(`${root}${path}`, {
      method,
      headers: {
        ...authorization(credentials),
        ...(body === undefined ? {} : { "content-type": "application/json" }),
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      dispatcher,
      headersTimeout: 60_000,
      bodyTimeout: 60_000,
    });
    status = answer.statusCode;
    text = await answer.body.text();
  } catch (error) {
    throw new OperatorError(`cannot reach ${root}${path}: ${describe(error)}`);
  } finally {
    await dispatcher.close();
  }
  if (status === 200 || status === 201) return JSON.parse(text);
  try {
    const error = parseError(text);
    const line = `${error.exception}: ${error.description}`;
    throw new OperatorError(
      error.exception === "NotFound" ? line : `the node refused: ${line}`,
      error.exception === "NotFound" ? 2 : 1,
    );
  } catch (error) {
    if (error instanceof OperatorError) throw error;
    throw new OperatorError(`the node answered HTTP ${status}: is --node a Member Node's base URL?`, 2);
  }
}
