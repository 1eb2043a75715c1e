/**
 * The validators of a package (RFC 9110 section 8.8): a bag is made again for each request, with that moment's
 * Bagging-Date and README, so two bags of an unchanged package are "semantically equivalent" but not the same
 * bytes. Its entity tag is therefore weak ("W/"): it is the SHA-256 of everything the bag's content is made from
 * (package type, API version, node, and each object's identifier, stored bytes and system metadata version).
 * Last-Modified is the latest system metadata change among the resource map and its members.
 */
import { createHash } from "node:crypto";
import type { StoredObject } from "../types/stored-object.ts";

export interface PackageValidators {
  /** `W/"bag-<hex>"`. */
  etag: string;
  lastModified: Date;
}

export function packageValidators(
  parts: { type: string; version: string; nodeId: string },
  objects: readonly StoredObject[],
): PackageValidators {
  const hash = createHash("sha256").update(JSON.stringify([parts.type, parts.version, parts.nodeId]));
  let latest = 0;
  for (const { sysmeta, contentKey } of objects) {
    const modified = (sysmeta.dateSysMetadataModified ?? sysmeta.dateUploaded ?? new Date(0)).getTime();
    latest = Math.max(latest, modified);
    hash.update(
      `\n${JSON.stringify([sysmeta.identifier, contentKey, sysmeta.serialVersion ?? 1, modified])}`,
    );
  }
  return { etag: `W/"bag-${hash.digest("hex")}"`, lastModified: new Date(latest) };
}
