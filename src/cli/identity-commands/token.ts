/** `d1node token --subject S`: a bearer token that a node started on the same data folder accepts. */
import type { Command } from "commander";
import { mintToken } from "../../auth/tokens.ts";
import { existingSigningKey } from "../data-folder.ts";
import { addCommonOptions, type CommonFlags, configFromFlags } from "../options.ts";

interface TokenFlags extends CommonFlags {
  subject: string;
  ttl: string;
}

export function registerTokenCommand(program: Command): void {
  addCommonOptions(
    program.command("token").description("print a bearer token for a subject, signed with the node's key"),
  )
    .requiredOption("-s, --subject <subject>", "the subject the token speaks for")
    .option("--ttl <seconds>", "lifetime in seconds", "64800")
    .action(async (flags: TokenFlags, command: Command) => {
      const config = configFromFlags(flags as TokenFlags & Record<string, unknown>);
      const ttlSeconds = Number(flags.ttl);
      if (!Number.isInteger(ttlSeconds) || ttlSeconds <= 0)
        command.error("--ttl must be a positive whole number");
      // The node refuses tokens valid for longer (src/auth/tokens.ts): say so now rather than print a dead token.
      if (config.maxTokenLifetime > 0 && ttlSeconds > config.maxTokenLifetime) {
        command.error(
          `--ttl ${ttlSeconds} is longer than the node accepts (maxTokenLifetime ${config.maxTokenLifetime} s)`,
        );
      }
      const { privateKey } = existingSigningKey(config);
      process.stdout.write(`${await mintToken(privateKey, { subject: flags.subject, ttlSeconds })}\n`);
    });
}
