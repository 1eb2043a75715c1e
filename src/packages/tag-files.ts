/**
 * The BagIt tag files: bagit.txt, bag-info.txt and the payload manifests. The manifests come from the digests
 * recorded for each object (MD5 and SHA-256; an MD5 the upload did not compute is computed and recorded before
 * the first bag that needs it).
 */
import { BAGIT_VERSION, type BagPlan } from "./types.ts";

/** The algorithms of the payload and tag manifests, as BagIt names them, with the stored digest they use. */
export const MANIFEST_ALGORITHMS = [
  { name: "md5", digest: "md5" },
  { name: "sha256", digest: "sha256" },
] as const;
export type ManifestAlgorithm = (typeof MANIFEST_ALGORITHMS)[number]["name"];

/** "BagIt-Version: M.N" and "Tag-File-Character-Encoding: UTF-8" (both versions). */
export function bagitTxt(plan: BagPlan): string {
  return `BagIt-Version: ${BAGIT_VERSION[plan.type]}\nTag-File-Character-Encoding: UTF-8\n`;
}

/** bag-info.txt: the package identifier, when it was bagged, and the payload size (Payload-Oxum "octets.count"). */
export function bagInfoTxt(plan: BagPlan, nodeId: string): string {
  const octets = plan.members.reduce((sum, m) => sum + m.object.digests.size, 0);
  const lines = [
    `Bagging-Date: ${plan.baggedAt.toISOString().slice(0, 10)}`,
    `Bag-Size: ${humanSize(octets)}`,
    `Payload-Oxum: ${octets}.${plan.members.length}`,
    `External-Identifier: ${oneLine(plan.packageId)}`,
    `External-Description: DataONE data package ${oneLine(plan.packageId)}, ${plan.members.length} objects`,
    `Source-Organization: ${oneLine(nodeId)}`,
  ];
  return `${lines.join("\n")}\n`;
}

/** manifest-<alg>.txt: "<digest>  data/<name>" for every payload file. */
export function payloadManifest(plan: BagPlan, algorithm: ManifestAlgorithm): string {
  return plan.members.map((m) => `${m.object.digests[algorithm]}  ${m.path}\n`).join("");
}

/** tagmanifest-<alg>.txt from the digests of the tag files, in the order they were written. */
export function tagManifest(
  digests: ReadonlyMap<string, Record<ManifestAlgorithm, string>>,
  algorithm: ManifestAlgorithm,
) {
  return [...digests].map(([path, d]) => `${d[algorithm]}  ${path}\n`).join("");
}

/** bag-info values are single lines. */
function oneLine(value: string): string {
  return value.replace(/[\r\n]+/g, " ");
}

function humanSize(octets: number): string {
  const units = ["B", "KB", "MB", "GB", "TB"];
  let value = octets;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit++;
  }
  return `${unit === 0 ? value : value.toFixed(1)} ${units[unit]}`;
}
