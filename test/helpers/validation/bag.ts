/**
 * Reading a bag (zip) in tests: every entry's bytes, checks of every manifest and tagmanifest line, and the
 * entries of a bag saved to a file, each streamed on request (for bags too large to hold).
 */
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import yauzl from "yauzl";

export async function unzip(zip: Buffer): Promise<Map<string, Buffer>> {
  const zipfile = await new Promise<yauzl.ZipFile>((resolve, reject) =>
    yauzl.fromBuffer(zip, { lazyEntries: true, validateEntrySizes: true }, (error, z) =>
      error ? reject(error) : resolve(z),
    ),
  );
  const files = new Map<string, Buffer>();
  await new Promise<void>((resolve, reject) => {
    zipfile.on("entry", (entry: yauzl.Entry) => {
      zipfile.openReadStream(entry, (error, stream) => {
        if (error) return reject(error);
        const chunks: Buffer[] = [];
        stream.on("data", (c: Buffer) => chunks.push(c));
        stream.on("error", reject);
        stream.on("end", () => {
          files.set(entry.fileName, Buffer.concat(chunks));
          zipfile.readEntry();
        });
      });
    });
    zipfile.on("end", () => resolve());
    zipfile.on("error", reject);
    zipfile.readEntry();
  });
  return files;
}

/** Every line of manifest-<alg>.txt and tagmanifest-<alg>.txt names a file of the bag with that digest. */
export function verifyManifests(files: Map<string, Buffer>): { payload: string[]; tags: string[] } {
  const payload = new Set<string>();
  const tags = new Set<string>();
  for (const [name, bytes] of files) {
    const match = /^(tag)?manifest-(md5|sha256)\.txt$/.exec(name);
    if (!match) continue;
    const algorithm = match[2] as string;
    for (const line of bytes.toString("utf8").split("\n").filter(Boolean)) {
      const [digest, ...rest] = line.split(/\s+/);
      const path = rest.join(" ");
      const file = files.get(path);
      assert.ok(file, `${name} lists ${path}, which is not in the bag`);
      assert.equal(createHash(algorithm).update(file).digest("hex"), digest, `${name}: ${path}`);
      (match[1] ? tags : payload).add(path);
    }
  }
  return { payload: [...payload], tags: [...tags] };
}

export interface ZipMember {
  entry: yauzl.Entry;
  text(): Promise<string>;
  /** MD5 and length of the member's bytes, streamed. */
  digest(): Promise<{ md5: string; size: number }>;
}

/** The entries of a zip file on disk (ZIP64 read by yauzl), each readable as a stream. */
export async function zipFileEntries(file: string): Promise<Map<string, ZipMember>> {
  const zip = await new Promise<yauzl.ZipFile>((resolve, reject) =>
    yauzl.open(file, { lazyEntries: true, autoClose: false }, (error, z) =>
      error ? reject(error) : resolve(z),
    ),
  );
  const open = (entry: yauzl.Entry) =>
    new Promise<NodeJS.ReadableStream>((resolve, reject) =>
      zip.openReadStream(entry, (error, stream) => (error ? reject(error) : resolve(stream))),
    );
  const digest = async (entry: yauzl.Entry) => {
    const md5 = createHash("md5");
    let size = 0;
    for await (const chunk of await open(entry)) {
      md5.update(chunk as Buffer);
      size += (chunk as Buffer).length;
    }
    return { md5: md5.digest("hex"), size };
  };
  const entries = new Map<string, ZipMember>();
  await new Promise<void>((resolve, reject) => {
    zip.on("entry", (entry: yauzl.Entry) => {
      entries.set(entry.fileName, {
        entry,
        digest: () => digest(entry),
        text: async () => {
          const chunks: Buffer[] = [];
          for await (const chunk of await open(entry)) chunks.push(chunk as Buffer);
          return Buffer.concat(chunks).toString("utf8");
        },
      });
      zip.readEntry();
    });
    zip.on("end", () => resolve());
    zip.on("error", reject);
    zip.readEntry();
  });
  return entries;
}
