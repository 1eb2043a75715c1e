/**
 * The `d1node upload` command: one file (`upload.ts`) or a data package (`--package`, `upload-package.ts`).
 */
import type { Command } from "commander";
import { OperatorError } from "./operator-error.ts";
import { type UploadFlags, uploadOne } from "./upload.ts";
import { uploadPackage } from "./upload-package.ts";

export function registerUploadCommand(program: Command): void {
  program
    .command("upload")
    .description("upload a file of any size (or a data package) to a Member Node (resumable) and create it")
    .argument("[file]", "the object's bytes")
    .requiredOption(
      "--to <url>",
      "the Member Node's base URL (without /v1 or /v2), e.g. https://mn.example.org/mn",
    )
    .option("--sysmeta <file>", "the object's system metadata (XML, v2)")
    .option(
      "--package <folder>",
      "every file of the folder with its system metadata in <file>.sysmeta.xml: resource maps last",
    )
    .option("--pid <pid>", "the identifier (default: the system metadata's; when given, they must agree)")
    .option("--token-file <file>", "file holding the bearer token (read again before each request)")
    .option("--cert <file>", "client certificate (PEM)")
    .option("--key <file>", "private key (PEM) of the client certificate")
    .option("--ca <file>", "CA certificate (PEM) the node's server certificate is signed by")
    .action(async (file: string | undefined, flags: UploadFlags) => {
      if (flags.package !== undefined) {
        if (file !== undefined || flags.sysmeta !== undefined || flags.pid !== undefined) {
          throw new OperatorError("--package takes neither a file, --sysmeta nor --pid");
        }
        await uploadPackage(flags.package, flags);
        return;
      }
      if (file === undefined || flags.sysmeta === undefined) {
        throw new OperatorError("give a file and its --sysmeta, or --package with a folder");
      }
      process.stdout.write(`${await uploadOne(file, flags.sysmeta, flags)}\n`);
    });
}
