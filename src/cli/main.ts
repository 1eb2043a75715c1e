/** The d1node command: serve, federation, worker, token, load, index, import, node, keys, register. */
import { Command } from "commander";
import { registerFederationCommand } from "./federation.ts";
import { registerImportCommand } from "./import.ts";
import { registerKeysCommand } from "./keys.ts";
import { registerLoadCommand } from "./load.ts";
import { registerNodeCommands } from "./nodes.ts";
import { OperatorError } from "./operator-error.ts";
import { registerRegisterCommand } from "./register.ts";
import { registerIndexCommand } from "./search-index.ts";
import { registerServeCommand } from "./serve.ts";
import { registerTokenCommand } from "./token.ts";
import { registerWorkerCommand } from "./worker.ts";

const program = new Command()
  .name("d1node")
  .description("DataONE Member Node and Coordinating Node")
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
registerRegisterCommand(program);
try {
  await program.parseAsync(process.argv);
} catch (error) {
  if (!(error instanceof OperatorError)) throw error;
  process.stderr.write(`d1node: ${error.message}\n`);
  process.exit(error.exitCode);
}
