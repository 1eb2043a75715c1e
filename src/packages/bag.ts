/**
 * Writes a bag as a zip stream while it is read: the tag files are small and made in memory; every payload file
 * is opened only when the zip writer reaches it, so memory stays flat whatever the number and size of members.
 * Entries are stored (not deflated) and ZIP64 is used when sizes or offsets need it.
 *
 * Layout: bagit.txt, bag-info.txt, manifest-{md5,sha256}.txt, metadata/oai-ore.xml, then for each member
 * data/<name> and metadata/sysmeta/<name>.xml, then README.html and tagmanifest-{md5,sha256}.txt last (they list
 * the digests of every tag file, computed as each was written).
 */
import { createHash } from "node:crypto";
import { PassThrough, Readable } from "node:stream";
import { ZipFile } from "yazl";
import { readmeHtml } from "./readme.ts";
import {
  bagInfoTxt,
  bagitTxt,
  MANIFEST_ALGORITHMS,
  type ManifestAlgorithm,
  payloadManifest,
  tagManifest,
} from "./tag-files.ts";
import type { BagPlan, BagSources } from "./types.ts";

export function writeBag(plan: BagPlan, sources: BagSources, nodeId: string): Readable {
  const zip = new ZipFile();
  const output = new PassThrough();
  const tagDigests = new Map<string, Record<ManifestAlgorithm, string>>();
  const mtime = plan.baggedAt;
  /** The stored object being read now, closed if the client goes away mid-bag. */
  let reading: Readable | undefined;

  const addTag = (path: string, make: () => string | Buffer) => {
    zip.addReadStreamLazy(path, { mtime, compress: false }, (callback) => {
      const bytes = Buffer.from(make());
      tagDigests.set(path, digestsOf(bytes));
      callback(null, Readable.from([bytes]));
    });
  };
  /** A stored object: its digests are known, its bytes are streamed from the store. */
  const addStored = (path: string, object: BagPlan["resourceMap"], isTag: boolean) => {
    const { size } = object.digests;
    zip.addReadStreamLazy(
      path,
      { mtime: object.sysmeta.dateUploaded ?? mtime, compress: false, size },
      (callback) => {
        if (isTag) tagDigests.set(path, { md5: object.digests.md5, sha256: object.digests.sha256 });
        try {
          reading = sources.open(object);
          callback(null, reading);
        } catch (error) {
          callback(error as Error, Readable.from([]));
        }
      },
    );
  };

  addTag("bagit.txt", () => bagitTxt(plan));
  addTag("bag-info.txt", () => bagInfoTxt(plan, nodeId));
  for (const { name } of MANIFEST_ALGORITHMS)
    addTag(`manifest-${name}.txt`, () => payloadManifest(plan, name));
  addStored("metadata/oai-ore.xml", plan.resourceMap, true);
  for (const member of plan.members) {
    addStored(member.path, member.object, false);
    addTag(member.sysmetaPath, () => sources.sysmetaXml(member.object));
  }
  addTag("README.html", () => readmeHtml(plan, nodeId));
  for (const { name } of MANIFEST_ALGORITHMS) {
    zip.addReadStreamLazy(`tagmanifest-${name}.txt`, { mtime, compress: false }, (callback) => {
      callback(null, Readable.from([Buffer.from(tagManifest(tagDigests, name))]));
    });
  }
  zip.end();

  // A read that fails half way (bytes removed after the checks) must not end as a well-formed zip: the stream
  // is destroyed, so the client sees a broken transfer rather than a short package.
  zip.on("error", (error: Error) => output.destroy(error));
  zip.outputStream.on("error", (error: Error) => output.destroy(error));
  zip.outputStream.pipe(output);
  output.on("close", () => {
    if (output.writableFinished) return;
    zip.outputStream.unpipe(output);
    (zip.outputStream as Readable).destroy();
    reading?.destroy();
  });
  return output;
}

function digestsOf(bytes: Buffer): Record<ManifestAlgorithm, string> {
  return {
    md5: createHash("md5").update(bytes).digest("hex"),
    sha256: createHash("sha256").update(bytes).digest("hex"),
  };
}
