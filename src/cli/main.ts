/** The d1node command: serve, token. */
import { Command } from "commander";
import { registerServeCommand } from "./serve.ts";
import { registerTokenCommand } from "./token.ts";

const program = new Command()
  .name("d1node")
  .description("DataONE Member Node and Coordinating Node")
  .showHelpAfterError();
registerServeCommand(program);
registerTokenCommand(program);
await program.parseAsync(process.argv);
