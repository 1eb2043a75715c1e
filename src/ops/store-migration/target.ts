/**
 * Where a store migration sends the bytes: an S3 location (`s3://bucket/prefix`, on the configured endpoint
 * unless another is named), or back to the data folder's `store/` folder, the one place a node keeps its bytes
 * on disk. The node's own settings (region, path style, credentials from the environment) apply to the target.
 */
import path from "node:path";
import type { Config } from "../../config/config.ts";
import { parseS3Url } from "../../config/s3-location.ts";
import { openStore } from "../../store/open-store.ts";
import type { ObjectStore } from "../../store/types.ts";

/** The settings that name a store: `store` unset is the data folder's `store/` folder. */
export interface StoreSetting {
  store: string | undefined;
  storeEndpoint: string | undefined;
}

export interface MigrationTarget {
  /** The store as the operator names it: the s3:// URL or the folder. */
  description: string;
  setting: StoreSetting;
  open(): Promise<ObjectStore>;
}

/** The store a node's settings name, as the operator would write it. */
export function describeStore(config: Readonly<Config>): string {
  return config.store ?? path.join(config.dataDir, "store");
}

/** The target `to` names; throws an Error saying why it cannot be one (the current store itself, another folder). */
export function resolveTarget(
  config: Readonly<Config>,
  to: string,
  endpoint: string | undefined,
): MigrationTarget {
  let setting: StoreSetting;
  if (to.startsWith("s3://")) {
    const location = parseS3Url(to);
    const storeEndpoint = (endpoint ?? config.storeEndpoint)?.replace(/\/+$/, "");
    if (storeEndpoint !== undefined && !/^https?:\/\/[^/]/.test(storeEndpoint)) {
      throw new Error(`--to-endpoint must be an http(s) URL such as http://127.0.0.1:7480`);
    }
    const current = config.store ? parseS3Url(config.store) : undefined;
    if (
      current?.bucket === location.bucket &&
      current.prefix === location.prefix &&
      config.storeEndpoint === storeEndpoint
    ) {
      throw new Error(`the node's bytes already are in ${to}: nothing to migrate`);
    }
    setting = { store: to, storeEndpoint };
  } else {
    const folder = path.join(config.dataDir, "store");
    if (path.resolve(to) !== folder) {
      throw new Error(
        `a node keeps its bytes on disk only in its data folder's store folder: --to ${folder} (or an s3:// location)`,
      );
    }
    if (!config.store) throw new Error(`the node's bytes already are in ${folder}: nothing to migrate`);
    setting = { store: undefined, storeEndpoint: config.storeEndpoint };
  }
  return {
    description: setting.store ?? path.join(config.dataDir, "store"),
    setting,
    // Only this command writes to the target: any temporary there is a stopped run's, however young.
    open: () => openStore({ ...config, ...setting, storeTempMaxAge: 0 }),
  };
}
