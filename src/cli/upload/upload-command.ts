/**
 * The `d1node upload` command: one file (`upload.ts`) or a data package (`--package`, `upload-package.ts`), its
 * system metadata given (`--sysmeta`, `<file>.sysmeta.xml`) or computed from flags (`upload-sysmeta.ts`); and
 * `d1node uploads list|prune` for the unfinished uploads it remembers (`uploads-command.ts`).
 */
import type { Command } from "commander";
import { OperatorError } from "../operator-error.ts";
import { type UploadFlags, uploadOne } from "./upload.ts";
import { uploadPackage } from "./upload-package.ts";
import { checkSysmetaFlags } from "./upload-sysmeta.ts";

const repeat = (value: string, previous: string[] = []) => [...previous, value];

/** The flags that say where to and as whom (shared with `d1node uploads`). */
export function addConnectionOptions(command: Command): Command {
  return command
    .option("--token-file <file>", "file holding the bearer token (read again before each request)")
    .option("--cert <file>", "client certificate (PEM)")
    .option("--key <file>", "private key (PEM) of the client certificate")
    .option("--ca <file>", "CA certificate (PEM) the node's server certificate is signed by");
}

export function registerUploadCommand(program: Command): void {
  const command = program
    .command("upload")
    .description("upload a file of any size (or a data package) to a Member Node (resumable) and create it")
    .argument("[file]", "the object's bytes")
    .requiredOption(
      "--to <url>",
      "the Member Node's base URL (without /v1 or /v2), e.g. https://mn.example.org/mn",
    )
    .option("--sysmeta <file>", "the object's system metadata (XML, v2); else computed from the flags below")
    .option(
      "--package <folder>",
      "every file of the folder, with its system metadata in <file>.sysmeta.xml or computed: resource maps last",
    )
    .option("--pid <pid>", "the identifier (default: the system metadata's, else a new urn:uuid:...)")
    .option("--format-id <id>", "the object's format (default: from the file's name and first bytes)")
    .option("--public", "anyone may read the object")
    .option(
      "--access <subject=permission>",
      "allow a subject read, write or changePermission (repeatable)",
      repeat,
    )
    .option(
      "--rights-holder <subject>",
      "the object's rights holder (default: the caller, as the token names)",
    )
    .option("--series-id <sid>", "the series the object starts")
    .option("--checksum-algorithm <name>", "MD5, SHA-1 or SHA-256 (default SHA-256)")
    .option(
      "--chunk-size <MiB>",
      "send the bytes in requests of at most this many MiB (default: one request; for proxies that limit bodies)",
    )
    .option(
      "--dry-run",
      "print the system metadata (for --package: identifier, format, file) and send nothing",
    );
  addConnectionOptions(command).action(async (file: string | undefined, flags: UploadFlags) => {
    checkSysmetaFlags(flags);
    if (flags.chunkSize !== undefined && !(Number(flags.chunkSize) > 0)) {
      throw new OperatorError(`--chunk-size ${flags.chunkSize} is no positive number of MiB`);
    }
    if (flags.package !== undefined) {
      if (file !== undefined || flags.sysmeta !== undefined || flags.pid !== undefined) {
        throw new OperatorError("--package takes neither a file, --sysmeta nor --pid");
      }
      if (flags.formatId !== undefined) {
        throw new OperatorError(
          "--package guesses each file's format: give one in <file>.sysmeta.xml instead",
        );
      }
      await uploadPackage(flags.package, flags);
      return;
    }
    if (file === undefined) throw new OperatorError("give a file, or --package with a folder");
    const pid = await uploadOne(file, flags);
    if (!flags.dryRun) process.stdout.write(`${pid}\n`);
  });
}
