/**
 * Copying single objects from a source (a fake one, in memory) on both dialects: versions listed newest first
 * arrive oldest first with their series' head where the source has it; bytes that differ from the source's
 * checksum are refused with nothing kept; a held object whose system metadata changed gets the new record; one
 * held with other bytes is refused; a seriesId another chain holds here is refused.
 */
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { Readable } from "node:stream";
import { after, it } from "node:test";
import type { Database } from "../../src/db/types.ts";
import { NotFound } from "../../src/errors/exceptions.ts";
import { importListed, importRecord, type ObjectImport } from "../../src/import/objects.ts";
import { type SourceNode, SourceUnreachable } from "../../src/import/source.ts";
import { IMPORT_FOLLOWS_NOTHING } from "../../src/import/write.ts";
import { createKeyedMutex } from "../../src/objects/keyed-mutex.ts";
import { createFsStore, type ObjectStore } from "../../src/store/index.ts";
import type { SystemMetadata } from "../../src/types/sysmeta.ts";
import { forEachDialect } from "../helpers/db/databases.ts";

const SOURCE = "urn:node:SOURCE";

function record(pid: string, bytes: string, overrides: Partial<SystemMetadata> = {}): SystemMetadata {
  const at = new Date(Date.UTC(2025, 5, 1));
  return {
    serialVersion: 3,
    identifier: pid,
    formatId: "text/csv",
    size: Buffer.byteLength(bytes),
    checksum: { algorithm: "MD5", value: createHash("md5").update(bytes).digest("hex") },
    submitter: "CN=submitter",
    rightsHolder: "CN=owner",
    accessPolicy: [{ subjects: ["CN=reader"], permissions: ["read"] }],
    archived: false,
    dateUploaded: at,
    dateSysMetadataModified: at,
    originMemberNode: SOURCE,
    authoritativeMemberNode: SOURCE,
    replicas: [],
    ...overrides,
  };
}

/** A source holding `objects` (record and bytes); `served` overrides the bytes it sends. */
function fakeSource(
  objects: Map<string, { sysmeta: SystemMetadata; bytes: string; served?: string }>,
): SourceNode {
  const find = (pid: string) => {
    const found = objects.get(pid);
    if (!found) throw new NotFound(`no ${pid}`);
    return found;
  };
  return {
    baseUrl: "http://source.invalid/mn",
    version: "v2",
    node: { identifier: SOURCE } as SourceNode["node"],
    listObjects: async () => ({ start: 0, total: 0, items: [] }),
    getSystemMetadata: async (pid) => structuredClone(find(pid).sysmeta),
    get: async (pid) => Readable.from([Buffer.from(find(pid).served ?? find(pid).bytes)]),
    getLogRecords: async () => ({ start: 0, total: 0, items: [] }),
    close: async () => undefined,
  };
}

forEachDialect((_name, open) => {
  let db: Database;
  let store: ObjectStore;
  let dir: string;
  const failures: string[] = [];
  const written: string[] = [];
  const run = (source: SourceNode): ObjectImport => ({
    ctx: { db, store, contentLocks: createKeyedMutex(), changes: IMPORT_FOLLOWS_NOTHING },
    source,
    sourceNodeId: SOURCE,
    onBytes: () => undefined,
    onWritten: (pid) => written.push(pid),
    onFailure: async ({ pid }) => {
      failures.push(pid);
    },
  });

  it("opens", async () => {
    db = await open();
    dir = await mkdtemp(path.join(tmpdir(), "d1node-import-store-"));
    store = await createFsStore(dir);
  });
  after(async () => {
    await store?.close();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it("copies a chain listed newest first oldest first, its series headed as at the source", async () => {
    const sid = "sid-chain";
    const objects = new Map([
      ["v1", { sysmeta: record("v1", "one", { seriesId: sid, obsoletedBy: "v2" }), bytes: "one" }],
      [
        "v2",
        { sysmeta: record("v2", "two", { seriesId: sid, obsoletes: "v1", obsoletedBy: "v3" }), bytes: "two" },
      ],
      ["v3", { sysmeta: record("v3", "three", { seriesId: sid, obsoletes: "v2" }), bytes: "three" }],
    ]);
    const source = fakeSource(objects);
    assert.equal(await importRecord(run(source), await source.getSystemMetadata("v3")), "copied");
    assert.deepEqual(written, ["v1", "v2", "v3"]);
    assert.equal(await db.objects.headOfSeries(sid), "v3");
    for (const [pid, { sysmeta }] of objects) assert.deepEqual((await db.objects.get(pid))?.sysmeta, sysmeta);
    // Listed later, as held: nothing to do, no request for its record.
    const v1 = record("v1", "one");
    const info = { ...v1, dateSysMetadataModified: v1.dateSysMetadataModified as Date };
    const held = await db.objects.get("v1");
    assert.equal(await importListed(run(source), info, held), "unchanged");
  });

  it("refuses bytes that differ from the source's checksum and keeps nothing", async () => {
    const source = fakeSource(
      new Map([["bad", { sysmeta: record("bad", "right"), bytes: "right", served: "wrong" }]]),
    );
    await assert.rejects(importRecord(run(source), await source.getSystemMetadata("bad")), {
      exception: "InvalidSystemMetadata",
    });
    assert.equal(await db.objects.get("bad"), undefined);
    assert.equal((await db.blobIntents.list()).length, 0);
  });

  it("passes on a connection cut while the bytes come (the source's SourceUnreachable), and keeps nothing", async () => {
    const sysmeta = record("cut", "never complete");
    const source: SourceNode = {
      ...fakeSource(new Map([["cut", { sysmeta, bytes: "never complete" }]])),
      get: async () =>
        new Readable({
          read() {
            this.push(Buffer.from("never"));
            this.destroy(new SourceUnreachable("GET /object/cut could not be reached: other side closed"));
          },
        }),
    };
    await assert.rejects(importRecord(run(source), sysmeta), (error) => error instanceof SourceUnreachable);
    assert.equal(await db.objects.get("cut"), undefined);
  });

  it("takes the source's new system metadata for an object held, and refuses other bytes", async () => {
    const first = record("changing", "same");
    const objects = new Map([["changing", { sysmeta: first, bytes: "same" }]]);
    await importRecord(run(fakeSource(objects)), first);
    const later = {
      ...first,
      archived: true,
      serialVersion: 4,
      dateSysMetadataModified: new Date(Date.UTC(2025, 6, 1)),
    };
    assert.equal(await importRecord(run(fakeSource(objects)), later), "updated");
    assert.deepEqual((await db.objects.get("changing"))?.sysmeta, later);
    // Changed here since (a later dateSysMetadataModified): an older record from the source does not undo it.
    assert.equal(await importRecord(run(fakeSource(objects)), first), "unchanged");
    assert.deepEqual((await db.objects.get("changing"))?.sysmeta, later);
    await assert.rejects(importRecord(run(fakeSource(objects)), record("changing", "other bytes")), {
      exception: "InvalidRequest",
    });
  });

  it("refuses a seriesId another chain holds here, and holds other nodes' objects as replicas", async () => {
    const mine = record("own-sid", "x", { seriesId: "taken-sid" });
    const theirs = record("other-chain", "y", { seriesId: "taken-sid" });
    const replica = record("replica", "z", { authoritativeMemberNode: "urn:node:ELSEWHERE" });
    const source = fakeSource(
      new Map([
        ["own-sid", { sysmeta: mine, bytes: "x" }],
        ["other-chain", { sysmeta: theirs, bytes: "y" }],
        ["replica", { sysmeta: replica, bytes: "z" }],
      ]),
    );
    await importRecord(run(source), mine);
    await assert.rejects(importRecord(run(source), theirs), { exception: "InvalidSystemMetadata" });
    assert.equal(await db.objects.get("other-chain"), undefined);
    // A refused write notes no copy: its note is written in its transaction.
    const noted = await db.importProgress.copiesOf(source.baseUrl, ["own-sid", "other-chain"]);
    assert.deepEqual([...noted.keys()], ["own-sid"]);
    await importRecord(run(source), replica);
    assert.equal((await db.objects.get("replica"))?.isReplica, true);
    assert.equal((await db.objects.get("own-sid"))?.isReplica, false);
  });

  it("two lanes on one chain: the first version listed to one and copied ahead by the other is written once, both go on", async () => {
    // Every copy is noted in its write's transaction: a lane that finds the version written by the other (or a
    // run killed right after a write) sees it as the import's own, so the next version may follow it.
    const chains = Array.from({ length: 20 }, (_, i) => `race${i}`);
    const objects = new Map<string, { sysmeta: SystemMetadata; bytes: string }>();
    for (const chain of chains) {
      const sid = `${chain}-sid`;
      const first = record(`${chain}-1`, `${chain} one`, { seriesId: sid, obsoletedBy: `${chain}-2` });
      const second = record(`${chain}-2`, `${chain} two`, { seriesId: sid, obsoletes: `${chain}-1` });
      objects.set(first.identifier, { sysmeta: first, bytes: `${chain} one` });
      objects.set(second.identifier, { sysmeta: second, bytes: `${chain} two` });
    }
    const source = fakeSource(objects);
    failures.length = 0;
    await Promise.all(
      chains.flatMap((chain) => {
        const first = objects.get(`${chain}-1`)?.sysmeta as SystemMetadata;
        const info = { ...first, dateSysMetadataModified: first.dateSysMetadataModified as Date };
        return [
          importListed(run(source), info),
          importRecord(run(source), objects.get(`${chain}-2`)?.sysmeta as SystemMetadata),
        ];
      }),
    );
    assert.deepEqual(failures, []);
    for (const chain of chains) assert.equal(await db.objects.headOfSeries(`${chain}-sid`), `${chain}-2`);
    const noted = await db.importProgress.copiesOf(source.baseUrl, [...objects.keys()]);
    assert.equal(noted.size, objects.size);
  });
});
