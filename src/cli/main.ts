/** The d1node command: serve, federation, worker, token, load, index, import, node. */
import { Command } from "commander";
import { registerFederationCommand } from "./federation.ts";
import { registerImportCommand } from "./import.ts";
import { registerLoadCommand } from "./load.ts";
import { registerNodeCommands } from "./nodes.ts";
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
await program.parseAsync(process.argv);
