/** The node's object store as configured: the folder `store` in the data folder, or an S3 bucket (`store: s3://...`). */
import path from "node:path";
import type { Config } from "../config/config.ts";
import { parseS3Url } from "../config/s3-location.ts";
import { createFsStore } from "./fs-store.ts";
import type { ObjectStore } from "./types.ts";

export async function openStore(config: Readonly<Config>): Promise<ObjectStore> {
  if (!config.store) return createFsStore(path.join(config.dataDir, "store"));
  // Loaded only when used: the AWS SDK is large and a filesystem node does not need it.
  const { createS3Store } = await import("./s3/s3-store.ts");
  return createS3Store({
    ...parseS3Url(config.store),
    ...(config.storeEndpoint ? { endpoint: config.storeEndpoint } : {}),
    ...(config.storeRegion ? { region: config.storeRegion } : {}),
    forcePathStyle: config.storePathStyle,
    tempMaxAgeSeconds: config.storeTempMaxAge,
    partSize: config.storePartSize,
  });
}
