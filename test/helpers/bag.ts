/** Reading a bag (zip) in tests: every entry's bytes, and checks of every manifest and tagmanifest line. */
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
