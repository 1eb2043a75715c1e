/**
 * `d1node uploads list|prune`: the unfinished uploads `d1node upload` remembers (upload-memory.ts). `list` shows
 * each (with credentials, how many bytes the node holds); `prune` ends each on the node (tus DELETE, the
 * creator's alone) and forgets it, so the node frees its space now rather than when the upload expires.
 */
import path from "node:path";
import type { Command } from "commander";
import { Agent, request } from "undici";
import { OperatorError } from "../operator-error.ts";
import { authorization, type Credentials, credentialsOf, describe, errorText } from "./upload.ts";
import { addConnectionOptions } from "./upload-command.ts";
import {
  openUploadMemory,
  type RememberedUpload,
  rememberedUploads,
  uploadMemoryFile,
} from "./upload-memory.ts";

interface UploadsFlags {
  to?: string;
  tokenFile?: string;
  cert?: string;
  key?: string;
  ca?: string;
}

export function registerUploadsCommand(program: Command): void {
  const uploads = program
    .command("uploads")
    .description("the unfinished uploads `d1node upload` remembers: list them, or end them on the node");
  addConnectionOptions(
    uploads
      .command("list")
      .description("list the remembered uploads (with credentials: the bytes each node holds)")
      .option("--to <url>", "only the uploads to this Member Node base URL"),
  ).action(async (flags: UploadsFlags) => {
    const memory = await openUploadMemory();
    const found = await rememberedUploads(memory, endpointOf(flags));
    if (found.length === 0) {
      process.stderr.write(`no unfinished uploads remembered (${uploadMemoryFile()})\n`);
      return;
    }
    const connection = flags.tokenFile || flags.cert ? credentialsOf(flags) : undefined;
    for (const upload of found) {
      const held = connection ? await heldBytes(connection, upload) : "";
      process.stdout.write(
        `${upload.createdAt}\t${upload.file}\t${upload.size} bytes\t${upload.uploadUrl}${held ? `\t${held}` : ""}\n`,
      );
    }
  });
  addConnectionOptions(
    uploads
      .command("prune")
      .description("end the remembered unfinished uploads on their nodes and forget them")
      .option("--to <url>", "only the uploads to this Member Node base URL"),
  ).action(async (flags: UploadsFlags) => {
    const connection = credentialsOf(flags);
    const memory = await openUploadMemory();
    const found = await rememberedUploads(memory, endpointOf(flags));
    let failed = 0;
    for (const upload of found) {
      const answer = await call(connection, upload.uploadUrl, "DELETE");
      const name = path.basename(upload.file);
      // 404/410: the node no longer has it (used, expired or ended); nothing to end.
      if (answer.status === 204 || answer.status === 404 || answer.status === 410) {
        await memory.removeUpload(upload.key);
        process.stdout.write(`ended ${upload.uploadUrl} (${name})\n`);
      } else {
        failed++;
        process.stderr.write(`cannot end ${upload.uploadUrl} (${name}): ${answer.text}\n`);
      }
    }
    if (failed > 0) throw new OperatorError(`${failed} of ${found.length} uploads not ended`, 1);
    process.stderr.write(`${found.length} unfinished uploads ended and forgotten\n`);
  });
}

function endpointOf(flags: UploadsFlags): string | undefined {
  return flags.to === undefined ? undefined : `${flags.to.replace(/\/+$/, "")}/uploads`;
}

/** "N of M bytes on the node", or why not. */
async function heldBytes(connection: Credentials, upload: RememberedUpload): Promise<string> {
  const answer = await call(connection, upload.uploadUrl, "HEAD");
  if (answer.status === 404 || answer.status === 410) return "gone from the node";
  if (answer.offset === undefined) return answer.text;
  return `${answer.offset} of ${upload.size} bytes on the node`;
}

/** One tus request to an upload's URL. */
async function call(
  connection: Credentials,
  url: string,
  method: "HEAD" | "DELETE",
): Promise<{ status: number; offset?: number; text: string }> {
  const dispatcher = new Agent({ connect: connection.tls });
  try {
    const answer = await request(url, {
      method,
      headers: { ...authorization(connection), "tus-resumable": "1.0.0" },
      dispatcher,
    });
    const body = await answer.body.text();
    const offset = Number(answer.headers["upload-offset"]);
    return {
      status: answer.statusCode,
      ...(Number.isFinite(offset) && answer.statusCode === 200 ? { offset } : {}),
      text: errorText(answer.statusCode, body),
    };
  } catch (error) {
    return { status: 0, text: `cannot reach the node: ${describe(error)}` };
  } finally {
    await dispatcher.close();
  }
}
