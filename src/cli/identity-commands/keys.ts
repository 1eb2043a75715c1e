/** `d1node keys export`: the node's token-signing public key (PEM), for operators who pin it (trustedTokenKeys). */
import type { Command } from "commander";
import { tokenKeysPem } from "../../http/routes/token-keys.ts";
import { existingSigningKey } from "../data-folder.ts";
import { addCommonOptions, type CommonFlags, configFromFlags } from "../options.ts";

export function registerKeysCommand(program: Command): void {
  const keys = program.command("keys").description("the node's token-signing key");
  addCommonOptions(
    keys
      .command("export")
      .description(
        "print the public key that signs the node's tokens (as GET <baseUrl>/token-keys serves it)",
      ),
  ).action((flags: CommonFlags) => {
    const config = configFromFlags(flags as CommonFlags & Record<string, unknown>);
    existingSigningKey(config); // says so rather than make a key no node uses
    process.stdout.write(tokenKeysPem(config));
  });
}
