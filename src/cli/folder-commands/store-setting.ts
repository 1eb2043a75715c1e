/**
 * After a complete store migration, the node's `store` setting must name the target. Settings come from flags,
 * then the environment, then the config file (src/config/config.ts): when the node's store comes from its config
 * file, that file is rewritten (atomically: a new file renamed over it, keeping every other setting); when it
 * comes from a flag or the environment, or there is no config file, the command cannot change how the node is
 * started and prints the setting to use instead.
 */
import { readFileSync } from "node:fs";
import { open, rename } from "node:fs/promises";
import type { StoreSetting } from "../../ops/store-migration/target.ts";

export interface SettingSources {
  /** The config file the command was given (--config or D1NODE_CONFIG). */
  configFile: string | undefined;
  /** Whether the store came from a flag of this command (--store / --store-endpoint). */
  fromFlags: boolean;
  env: NodeJS.ProcessEnv;
}

/** Switches the node to `target` where possible; returns the line that tells the operator what was done. */
export async function switchStoreSetting(sources: SettingSources, target: StoreSetting): Promise<string> {
  const named = target.store ?? "the data folder's store folder";
  const fromEnv = Boolean(sources.env.D1NODE_STORE);
  if (sources.configFile && !sources.fromFlags && !fromEnv) {
    await rewriteConfigFile(sources.configFile, target);
    return `${sources.configFile}: "store" now ${target.store ? `is ${target.store}` : "unset"}; restart the node to serve from ${named}`;
  }
  const how = target.store
    ? [
        `--store ${target.store}`,
        ...(target.storeEndpoint ? [`--store-endpoint ${target.storeEndpoint}`] : []),
      ]
    : ["no --store"];
  const env = target.store ? `set D1NODE_STORE=${target.store}` : "unset D1NODE_STORE";
  const where = fromEnv ? env : `start it with ${how.join(" ")} (or ${env}, or "store" in its config file)`;
  return `the node's settings are not in a config file this command may change: ${where}`;
}

async function rewriteConfigFile(file: string, target: StoreSetting): Promise<void> {
  const settings = JSON.parse(readFileSync(file, "utf8")) as Record<string, unknown>;
  if (target.store) {
    settings.store = target.store;
    if (target.storeEndpoint) settings.storeEndpoint = target.storeEndpoint;
  } else delete settings.store;
  const next = `${file}.new`;
  const handle = await open(next, "w");
  try {
    await handle.writeFile(`${JSON.stringify(settings, null, 2)}\n`);
    await handle.sync();
  } finally {
    await handle.close();
  }
  await rename(next, file);
}
