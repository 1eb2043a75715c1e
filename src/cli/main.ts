/** The d1node command: serve, federation, worker, token, load, index, import, node, keys, cert, register, audit, backup, restore, upload, uploads, object, review-link, store. */
import { readFileSync } from "node:fs";
import { Command } from "commander";
import { describeFailure } from "./failures.ts";
import { registerFederationCommand } from "./federation.ts";
import { registerAuditCommand } from "./folder-commands/audit.ts";
import { registerBackupCommands } from "./folder-commands/backup.ts";
import { registerImportCommand } from "./folder-commands/import.ts";
import { registerLoadCommand } from "./folder-commands/load.ts";
import { registerIndexCommand } from "./folder-commands/search-index.ts";
import { registerStoreCommands } from "./folder-commands/store.ts";
import { registerCertCommands } from "./identity-commands/cert.ts";
import { registerKeysCommand } from "./identity-commands/keys.ts";
import { registerTokenCommand } from "./identity-commands/token.ts";
import { registerObjectCommands } from "./object-commands/object-command.ts";
import { OperatorError } from "./operator-error.ts";
import { registerNodeCommands } from "./registry-commands/nodes.ts";
import { registerRegisterCommand } from "./registry-commands/register.ts";
import { registerReviewLinkCommands } from "./review-link-command.ts";
import { registerServeCommand } from "./serve.ts";
import { registerUploadCommand } from "./upload/upload-command.ts";
import { registerUploadsCommand } from "./upload/uploads-command.ts";
import { registerWorkerCommand } from "./worker.ts";

/** The package's version (package.json is two folders up from both src/cli and dist/cli). */
const { version } = JSON.parse(readFileSync(new URL("../../package.json", import.meta.url), "utf8")) as {
  version: string;
};

const program = new Command()
  .name("d1node")
  .description("DataONE Member Node and Coordinating Node")
  .version(`d1node ${version}`, "-V, --version", "print the version")
  .showHelpAfterError();
registerServeCommand(program);
registerFederationCommand(program);
registerWorkerCommand(program);
registerTokenCommand(program);
registerLoadCommand(program);
registerIndexCommand(program);
registerImportCommand(program);
registerNodeCommands(program);
registerKeysCommand(program);
registerCertCommands(program);
registerRegisterCommand(program);
registerAuditCommand(program);
registerBackupCommands(program);
registerUploadCommand(program);
registerUploadsCommand(program);
registerObjectCommands(program);
registerReviewLinkCommands(program);
registerStoreCommands(program);
/** An operator's mistake (or anything else that stops a command): one line, a non-zero exit code, no stack trace. */
function fail(error: unknown): never {
  const command = program.args[0] ?? "";
  const message = error instanceof OperatorError ? error.message : describeFailure(error);
  process.stderr.write(`d1node${command ? ` ${command}` : ""}: ${message}\n`);
  if (process.env.D1NODE_DEBUG) process.stderr.write(`${(error as Error).stack}\n`);
  process.exit(error instanceof OperatorError ? error.exitCode : 2);
}
// Until the command is under way (a node serving), errors raised as events (a socket that cannot listen) too.
process.on("uncaughtException", fail);
try {
  await program.parseAsync(process.argv);
} catch (error) {
  fail(error);
}
process.off("uncaughtException", fail);
