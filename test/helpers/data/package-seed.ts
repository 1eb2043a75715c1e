/**
 * Fill a stopped node's data folder (SQLite) with a package: members staged into the store as any upload would
 * be, then inserted with their system metadata, and a resource map aggregating them. For scale tests.
 */
import path from "node:path";
import { Readable } from "node:stream";
import type { StoredObject } from "../../../src/db/types.ts";
import { openNodeDatabase } from "../../../src/node/open-database.ts";
import { createFsStore, type Digests } from "../../../src/store/index.ts";
import { RESOURCE_MAP_FORMAT, resourceMapXml } from "./resource-map.ts";

export interface SeedMember {
  pid: string;
  fileName: string;
  /** A fresh stream of the member's bytes (called once per distinct content). */
  bytes: () => Readable;
  /** Members with the same content key share one stored copy (the store is content-addressed). */
  contentKey?: string;
}

export interface SeededPackage {
  mapPid: string;
  digests: Map<string, Digests>;
}

export async function seedPackage(
  dataDir: string,
  mapPid: string,
  members: SeedMember[],
): Promise<SeededPackage> {
  const db = await openNodeDatabase({ sqlitePath: path.join(dataDir, "d1node.sqlite") });
  const store = await createFsStore(path.join(dataDir, "store"));
  const byContent = new Map<string, { key: string; digests: Digests }>();
  const digests = new Map<string, Digests>();
  try {
    const stage = async (bytes: Readable) => {
      const staged = await store.stage(bytes);
      await staged.commit();
      return { key: staged.key, digests: staged.digests };
    };
    const objects: StoredObject[] = [];
    const now = Date.now();
    for (const [i, member] of members.entries()) {
      const shared = member.contentKey ? byContent.get(member.contentKey) : undefined;
      const stored = shared ?? (await stage(member.bytes()));
      if (member.contentKey && !shared) byContent.set(member.contentKey, stored);
      digests.set(member.pid, stored.digests);
      objects.push(
        objectOf(
          member.pid,
          "application/octet-stream",
          stored,
          new Date(now - members.length + i),
          member.fileName,
        ),
      );
    }
    const metadata = members[0]?.pid ?? "";
    const map = await stage(
      Readable.from([
        Buffer.from(
          resourceMapXml(
            mapPid,
            metadata,
            members.slice(1).map((m) => m.pid),
          ),
        ),
      ]),
    );
    objects.push(objectOf(mapPid, RESOURCE_MAP_FORMAT, map, new Date(now), undefined));
    for (const object of objects) await db.objects.insert(object);
  } finally {
    await store.close();
    await db.close();
  }
  return { mapPid, digests };
}

function objectOf(
  identifier: string,
  formatId: string,
  stored: { key: string; digests: Digests },
  date: Date,
  fileName: string | undefined,
): StoredObject {
  return {
    contentKey: stored.key,
    digests: stored.digests,
    isReplica: false,
    sysmeta: {
      serialVersion: 1,
      identifier,
      formatId,
      size: stored.digests.size,
      checksum: { algorithm: "MD5", value: stored.digests.md5 },
      submitter: "CN=seed",
      rightsHolder: "CN=seed",
      accessPolicy: [{ subjects: ["public"], permissions: ["read"] }],
      archived: false,
      dateUploaded: date,
      dateSysMetadataModified: date,
      originMemberNode: "urn:node:TESTMN",
      authoritativeMemberNode: "urn:node:TESTMN",
      replicas: [],
      ...(fileName ? { fileName } : {}),
    },
  };
}
