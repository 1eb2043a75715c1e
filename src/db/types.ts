import type { Kysely } from "kysely";
import type { BrowserSessionStore } from "../auth/browser-session-store.ts";
import type { ReviewLinkStore } from "../auth/review-link-store.ts";
import type { HexDigest } from "../types/content-hash.ts";
import type { ObjectVersion, StoredObject } from "../types/stored-object.ts";
import type { SystemMetadata } from "../types/sysmeta.ts";
import type { LogEntry, ObjectInfo, Slice } from "../types/xml-documents/lists-xml.ts";
import type { HarvestProgressStore } from "./cn/harvest-progress.ts";
import type { LogProgressStore } from "./cn/log-progress.ts";
import type { ReplicaNodeRecords } from "./cn/replica-nodes.ts";
import type { CnRepository } from "./cn/repository.ts";
import type { SqliteSharing } from "./engine/sqlite-sharing.ts";
import type { IndexChangeLog } from "./index-changes.ts";
import type { NodeCounts } from "./lists/node-counts.ts";
import type { OaiRecords } from "./oai-records.ts";
import type { AuditStore } from "./objects/audit-runs.ts";
import type { ContentKeyLocks } from "./objects/content-key-locks.ts";
import type { ImportProgressStore } from "./objects/import-progress.ts";
import type { Tables } from "./schema.ts";
import type { TaskQueue, TaskStore } from "./tasks.ts";
import type { UploadRecords } from "./upload-records.ts";
import type { UsageStore } from "./usage/usage-store.ts";

export type {
  HarvestProgress,
  HarvestProgressStore,
  ListParams,
  OpenWindow,
} from "./cn/harvest-progress.ts";
export type { LogProgress, LogProgressStore } from "./cn/log-progress.ts";
export type { NodeRecord, ReplicaNodeRecords } from "./cn/replica-nodes.ts";
export type { HarvestPosition, NodeCounts, StoredCounts, TaskCount } from "./lists/node-counts.ts";
export type {
  AuditFinding,
  AuditFindingKind,
  AuditRun,
  AuditStore,
  RecordedFixity,
} from "./objects/audit-runs.ts";
export type { ImportFailure, ImportProgressStore } from "./objects/import-progress.ts";
export type { ClaimedTask, DeadTask, EnqueueOptions, TaskQueue, TaskStore } from "./tasks.ts";
export type {
  DatasetIncrement,
  DatasetMember,
  DatasetUsage,
  UsageCounts,
  UsageEvent,
  UsageIncrement,
  UsageMonth,
  UsageStore,
} from "./usage/usage-store.ts";

/** A page of a list (an ObjectList or Log slice), as the XML codecs serialise it. */
export type Page<T> = Slice<T>;
/** Plain values defined with the other domain types (src/types/), re-exported for the repositories' callers. */
export type { LogEntry, ObjectInfo, StoredObject };

export interface ObjectListFilter {
  /** dateSysMetadataModified >= fromDate */
  fromDate?: Date;
  /** dateSysMetadataModified < toDate */
  toDate?: Date;
  formatId?: string;
  /** A PID, or a SID (then every PID of the series). */
  identifier?: string;
  /** false: leave out objects held only as replicas. */
  replicaStatus?: boolean;
  /** CN listObjects: authoritativeMemberNode equals this. */
  nodeId?: string;
  /** Only objects readable by one of these subjects (rightsHolder or an allow rule); undefined: no filter. */
  readableBy?: string[];
}

export type NewLogEntry = Omit<LogEntry, "entryId">;

/** An entry read from another node's log; that node and its entry id there identify it. */
export interface HarvestedLogEntry extends NewLogEntry {
  sourceNode: string;
  sourceEntryId: string;
}

export interface LogFilter {
  fromDate?: Date;
  toDate?: Date;
  event?: string;
  /** Prefix match on the identifier. */
  idFilter?: string;
  /** Only entries about objects readable by one of these subjects; undefined: no filter. */
  readableBy?: string[];
}

/** Reads and writes on objects; every method may run inside a transaction. */
export interface ObjectRepository {
  get(pid: string): Promise<StoredObject | undefined>;
  /**
   * The object when it is at hand without waiting (the row cache, or the SQLite handle read directly), else
   * undefined: absent, or only get() can tell.
   */
  peek(pid: string): StoredObject | undefined;
  /** Several objects in few queries (packages of many members); absent pids are missing from the map. */
  getMany(pids: readonly string[]): Promise<Map<string, StoredObject>>;
  /** The HEAD PID of a series: kept with the SID as each write changes the series (see series.ts). */
  headOfSeries(sid: string): Promise<string | undefined>;
  /** Whether the string is used as a PID or as a SID by any object. */
  isIdentifierInUse(id: string): Promise<boolean>;
  /** Every PID that carries this SID, oldest first. */
  pidsOfSeries(sid: string): Promise<string[]>;
  insert(object: StoredObject): Promise<void>;
  /** Several new objects in one atomic write, a few statements for all (DuplicateKeyError if any PID exists). */
  insertMany(objects: readonly StoredObject[]): Promise<void>;
  /**
   * Replace the stored system metadata of an existing PID (all fields, access rules and replicas). With
   * `expectedSerialVersion`, only if the stored serialVersion still is that (else StaleVersionError).
   */
  replaceSysmeta(sysmeta: SystemMetadata, expectedSerialVersion?: number): Promise<void>;
  remove(pid: string): Promise<void>;
  /** How many objects reference these bytes. */
  countByContentKey(key: string): Promise<number>;
  /**
   * Up to `limit` PIDs of objects whose bytes have the digest `hex` (objects/digest-match.ts), oldest upload
   * first; with `readableBy`, only those one of these subjects may read.
   */
  pidsWithDigest(hex: HexDigest, readableBy: readonly string[] | undefined, limit: number): Promise<string[]>;
  /**
   * Record a digest computed after the upload (MD5, SHA-1 or SHA-256) for every object whose bytes are `key` and
   * that has none recorded yet ("").
   */
  recordDigest(key: string, hash: "md5" | "sha1" | "sha256", value: string): Promise<void>;
  /** Bytes of the objects held as replicas, leaving out `exceptPid`. */
  replicaBytes(exceptPid: string): Promise<number>;
  /**
   * Up to `limit` PIDs after `after` in PID order: every object's (`all`), or those with a replication policy
   * (`withPolicy`) or with a replica entry (`withReplicas`).
   */
  pidsAfter(
    which: "all" | "withPolicy" | "withReplicas",
    after: string | undefined,
    limit: number,
  ): Promise<string[]>;
  /** How many objects have a PID after `after` (undefined: all of them). */
  countAfter(after: string | undefined): Promise<number>;
  /** The current version of each of these objects that exists, by PID (a removed one is absent). */
  versionsOf(pids: readonly string[]): Promise<Map<string, ObjectVersion>>;
  /** Ordered by (dateSysMetadataModified, identifier); keyset paging underneath, also for start/count. */
  list(filter: ObjectListFilter, start: number, count: number): Promise<Page<ObjectInfo>>;
}

export interface EventLog {
  /** Queue an entry; written in batches off the request path. */
  append(entry: NewLogEntry): void;
  /** Write everything queued now. */
  flush(): Promise<void>;
  /**
   * Store entries harvested from other nodes, at once; one already stored is skipped. Returns how many were new.
   * `alsoInTransaction` runs in the same transaction, with that number (a harvest's progress commits with it).
   */
  addHarvested(
    entries: readonly HarvestedLogEntry[],
    alsoInTransaction?: (tx: Kysely<Tables>, added: number) => Promise<void>,
  ): Promise<number>;
  /** Ordered by dateLogged then entry id. */
  list(filter: LogFilter, start: number, count: number): Promise<Page<LogEntry>>;
}

/**
 * Bytes that were moved into the store but whose row may not be committed yet.
 * add() is committed before the rename; the object insert's transaction removes it. At start-up any left
 * over key that no object references is deleted from the store.
 */
export interface BlobIntents {
  add(key: string): Promise<void>;
  remove(key: string): Promise<void>;
  list(): Promise<string[]>;
}

/** systemMetadataChanged notifications from a CN, waiting for the refresh from the authoritative copy. */
export interface SysmetaRefreshQueue {
  request(pid: string, serialVersion: number, modified: Date): Promise<void>;
  pending(): Promise<{ pid: string; serialVersion: number; modified: Date }[]>;
  done(pid: string): Promise<void>;
}

export interface Repositories {
  objects: ObjectRepository;
  blobIntents: BlobIntents;
}

/** Log entries written in the transaction of the change they record: a crash keeps both or neither. */
export interface EventWriter {
  add(entry: NewLogEntry): Promise<void>;
}

/** The repositories of one transaction, with its event log entries. */
export interface TransactionRepositories extends Repositories {
  events: EventWriter;
  /** The task queue inside the transaction: what is enqueued here commits with the write (the outbox). */
  tasks: TaskQueue;
  /** CN: the replication targets' records, changed with the replica list that reports the outcome. */
  replicaNodes: ReplicaNodeRecords;
  /** `d1node import`: which objects it wrote, recorded with the write (a killed run resumes knowing them). */
  importProgress: ImportProgressStore;
}

export interface Database extends Repositories {
  readonly dialect: "sqlite" | "postgres";
  /** The query builder, for modules owning their own tables (the search index). */
  readonly kysely: Kysely<Tables>;
  /** What changed in the search index, in order (every index write notes its PIDs once committed). */
  readonly indexChanges: IndexChangeLog;
  events: EventLog;
  sysmetaRefresh: SysmetaRefreshQueue;
  /** The Coordinating Node's tables (empty on a Member Node). */
  cn: CnRepository;
  /** The durable queue of background work (src/tasks/ runs it). */
  tasks: TaskStore;
  /** CN: how far each Member Node's objects were harvested. */
  harvestProgress: HarvestProgressStore;
  /** CN: how far each Member Node's event log was aggregated. */
  logProgress: LogProgressStore;
  /** CN: each Member Node's record as a replication target. */
  replicaNodes: ReplicaNodeRecords;
  /** Counts for the metrics and the status page (objects, tasks, harvest positions, replica states, index lag). */
  counts: NodeCounts;
  /** `d1node import`: positions in each source node's lists, and the objects that could not be copied. */
  importProgress: ImportProgressStore;
  /** The records of the OAI-PMH repository (src/oai/): public objects and removed ones' tombstones. */
  oai: OaiRecords;
  /** Fixity audits: the recorded digests to check, and each run's outcome (`audit.latest()`). */
  audit: AuditStore;
  /** Resumable uploads in progress, seen by every process (src/uploads). */
  uploads: UploadRecords;
  /** Content keys held across processes while bytes are committed or removed (content-key-locks.ts). */
  contentKeys: ContentKeyLocks;
  /** Browser sign-in: sessions, sign-ins under way, people who signed in (browser-sessions.ts). */
  browserSessions: BrowserSessionStore;
  /** Reviewer links: secret links to one dataset (review-links.ts). */
  reviewLinks: ReviewLinkStore;
  /** Usage metrics: the monthly counts per object, kept from the event log (src/db/usage/, src/services/usage/). */
  usage: UsageStore;
  /**
   * SQLite: copy the database, consistent, to `file` while it is in use (online backup API; the copy holds every
   * write committed before it ends). PostgreSQL: not available (pg_dump makes the copy).
   */
  snapshotTo(file: string): Promise<void>;
  /** SQLite: the file opened to this process's worker threads for a while (a rebuild's writers). */
  sqliteSharing?: SqliteSharing;
  /** PostgreSQL: the URL the database was opened with (a rebuild's writing threads connect with it). */
  readonly postgresUrl?: string;
  /**
   * Walks the unfiltered event log and object list once, remembering a position every 1000 rows, so that first
   * jumps to start=N need not scan to N (warm-lists.ts); resolves when done or `signal` aborts. Lists shorter
   * than `minimumRows` (default 100,000) are left cold.
   */
  warmLists(signal: AbortSignal, minimumRows?: number): Promise<void>;
  /** Run `work` in one transaction; the repositories it receives write inside it. */
  transaction<T>(work: (tx: TransactionRepositories) => Promise<T>): Promise<T>;
  close(): Promise<void>;
}
