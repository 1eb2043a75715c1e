/** The package serializations this node builds, and what a bag is made of. */
import type { Readable } from "node:stream";
import type { StoredObject } from "../types/stored-object.ts";

/** "the BagIt serialization MUST be supported and is the default" (MNPackage.getPackage). */
export const BAGIT_097 = "application/bagit-097";
export const BAGIT_10 = "application/bagit-1.0";
export const PACKAGE_TYPES = [BAGIT_097, BAGIT_10] as const;
export type PackageType = (typeof PACKAGE_TYPES)[number];

export function isPackageType(value: string): value is PackageType {
  return (PACKAGE_TYPES as readonly string[]).includes(value);
}

/** The BagIt-Version each package type declares in bagit.txt. */
export const BAGIT_VERSION: Record<PackageType, string> = { [BAGIT_097]: "0.97", [BAGIT_10]: "1.0" };

/** One object placed in the bag: its stored record and the path under data/. */
export interface PlacedMember {
  object: StoredObject;
  /** Path inside the bag, e.g. "data/table.csv". */
  path: string;
  /** Path of its system metadata document, e.g. "metadata/sysmeta/table.csv.xml". */
  sysmetaPath: string;
}

/** Everything needed to write a bag, resolved and checked before the first byte is sent. */
export interface BagPlan {
  type: PackageType;
  /** The resource map's identifier (bag-info External-Identifier). */
  packageId: string;
  resourceMap: StoredObject;
  members: PlacedMember[];
  /** Which metadata object documents which member, by identifier. */
  documents: { metadata: string; data: string }[];
  /** The time the bag is made (Bagging-Date). */
  baggedAt: Date;
}

/** How the bag writer reads stored bytes and writes system metadata; given by the service. */
export interface BagSources {
  open(object: StoredObject): Readable;
  sysmetaXml(object: StoredObject): string;
}
