/**
 * Table shapes as Kysely sees them. Dates are integer milliseconds since the epoch (BIGINT in PostgreSQL, read
 * back as numbers); booleans are integers 0/1 in both dialects; identifiers compare byte-wise in both (SQLite's
 * BINARY collation, PostgreSQL's "C"), so lists order identically.
 */
import type { Generated } from "kysely";

export interface ObjectsTable {
  pid: string;
  sid: string | null;
  format_id: string;
  size: number;
  checksum_algorithm: string;
  checksum_value: string;
  md5: string;
  sha1: string;
  sha256: string;
  extra_algorithm: string | null;
  extra_value: string | null;
  content_key: string;
  submitter: string | null;
  rights_holder: string;
  /** JSON: the access rules exactly as given (grouping kept, so the document re-serialises as it was). */
  access_policy: string;
  /** JSON: ReplicationPolicy or null. */
  replication_policy: string | null;
  obsoletes: string | null;
  obsoleted_by: string | null;
  archived: number;
  date_uploaded: number;
  date_modified: number;
  /** Microseconds after date_uploaded's millisecond, as a source gave them (0-999; migration 0021). */
  date_uploaded_us: number;
  /** Microseconds after date_modified's millisecond (the list order stays by milliseconds, then pid). */
  date_modified_us: number;
  origin_mn: string | null;
  authoritative_mn: string | null;
  serial_version: number;
  /** JSON: MediaType or null. */
  media_type: string | null;
  file_name: string | null;
  /** JSON: Replica[] with dates as milliseconds. */
  replicas: string;
  is_replica: number;
}

/**
 * Who may read an object, for the readableBy filters: one row per (pid, subject) for the rights holder and every
 * subject the access policy grants something, with the strongest permission held. Keyed (pid, subject), removed
 * with the object (foreign key, cascading).
 */
export interface AccessRulesTable {
  pid: string;
  subject: string;
  permission: string;
}

export interface EventsTable {
  id: Generated<number>;
  pid: string;
  ip: string;
  user_agent: string;
  subject: string;
  event: string;
  date_logged: number;
  node_id: string;
  /** A harvested event: the Member Node it came from and its entry id there (null for this node's own). */
  source_node?: string | null;
  source_entry?: string | null;
}

export interface BlobIntentsTable {
  content_key: string;
}

export interface SysmetaRefreshTable {
  pid: string;
  serial_version: number;
  date_modified: number;
  requested_at: number;
}

/** Log aggregation: per Member Node, the dateLogged its log has been read up to, and how many entries came. */
export interface LogAggregationTable {
  node_id: string;
  harvested_to: number;
  entries: number;
  updated_at: number;
}

/** CN node registry: the Node document (v2 XML) of each registered node; pending until approved. */
export interface CnNodesTable {
  node_id: string;
  base_url: string;
  node_xml: string;
  approved: number;
  registered_by: string;
  registered_at: number;
  /** Subjects waiting for an administrator's approval, a JSON array; null when none wait. */
  pending_subjects: string | null;
}

/** CN identifier reservations; subject "" marks an identifier retired by CNCore.delete (in use forever). */
export interface CnReservationsTable {
  id: string;
  subject: string;
  reserved_at: number;
}

/** CNRead.synchronize requests, waiting for the harvester. */
export interface CnSyncTasksTable {
  id: Generated<number>;
  pid: string;
  node_id: string;
  requested_by: string;
  queued_at: number;
}

/** CNIdentity accounts: the Person document as JSON. */
export interface CnAccountsTable {
  subject: string;
  person: string;
  verified: number;
}

/** CNIdentity equivalent identities: one row per direction. */
export interface CnEquivalentsTable {
  subject: string;
  equivalent: string;
}

/** CNIdentity.requestMapIdentity: `requester` asked to be mapped to `target`, waiting for target's answer. */
export interface CnPendingMapsTable {
  requester: string;
  target: string;
  requested_at: number;
}

/** CNIdentity groups: the Group document as JSON. */
export interface CnGroupsTable {
  subject: string;
  group_name: string;
  group_json: string;
}

/** Search index: one row per indexed object (src/search/store/index-store.ts). */
export interface SearchDocsTable {
  pid: string;
  /** JSON: the stored fields as Solr returns them. */
  doc: string;
  /** JSON: the fields extracted from the science metadata (kept so a sysmeta change needs no re-parse). */
  science: string;
  format_type: string | null;
  obsoleted: number;
  archived: number;
  is_public: number;
  date_uploaded: number | null;
  /** The formatId (for wildcard filters without a search_values scan). */
  format_id: string | null;
  /** SQLite: rowid of the document's terms in the FTS5 table search_terms (src/search/schema/terms.ts). */
  term_id?: number | null;
  /** PostgreSQL: the document's text-field terms (src/search/schema/terms.ts), GIN-indexed. */
  terms?: string[];
}

/** Search index: one row per (field, value) of a document's non-text fields; numbers and dates also `num`. */
export interface SearchValuesTable {
  pid: string;
  field: string;
  value: string;
  num: number | null;
}

/** Search index: package relations from resource maps (subject gets `object` in `field`). */
export interface SearchRelationsTable {
  map_pid: string;
  subject: string;
  field: string;
  object: string;
}

/** Search index: the full rebuild under way, if any (one row, name "full"; migration 0014-search-rebuild). */
export interface SearchRebuildTable {
  name: string;
  /** The last PID whose document the rebuild wrote (null: none yet). */
  after_pid: string | null;
  started_at: number;
  /** JSON: the CREATE INDEX statements of the secondary indexes dropped for the rebuild, to run at its end. */
  deferred_indexes: string;
}

/**
 * Every identifier in use, PIDs and SIDs alike, under one primary key (migration 0010-identifiers): a PID is
 * never a SID, and a SID names one series. `head` is a series' HEAD PID (null on a PID's row).
 */
export interface IdentifiersTable {
  id: string;
  kind: "pid" | "sid";
  head: string | null;
}

/** The durable task queue (see src/tasks). Times in milliseconds since the epoch. */
export interface TasksTable {
  id: Generated<number>;
  kind: string;
  key: string;
  /** JSON. */
  payload: string;
  state: "ready" | "running" | "dead";
  attempts: number;
  run_at: number;
  lease_owner: string | null;
  lease_until: number | null;
  last_error: string | null;
  created_at: number;
}

/** The CN's harvest position per Member Node (see src/federation/harvest). Times in ms since the epoch. */
export interface HarvestProgressTable {
  node_id: string;
  harvested_to: number | null;
  window_to: number | null;
  cursor_from: number | null;
  cursor_start: number;
  list_params: string;
  updated_at: number;
}

/** CN: a Member Node's record as a replication target (migration 0007-replication). Times in ms. */
export interface ReplicationNodesTable {
  node_id: string;
  /** Failed or timed-out replications since its last completed one. */
  consecutive_failures: number;
  failures: number;
  completions: number;
  last_failure_at: number | null;
  last_completion_at: number | null;
  /** Why the last replication to the node failed. */
  last_failure: string | null;
}

/** `d1node import`: the position in a source node's object list and event log (migration 0011-import). */
export interface ImportProgressTable {
  source: string;
  harvested_to: number | null;
  window_to: number | null;
  cursor_from: number | null;
  cursor_start: number;
  list_params: string;
  logs_to: number | null;
  updated_at: number;
}

/** `d1node import`: an object it wrote from a source, and the dateSysMetadataModified it wrote (ms). */
/** A resumable upload in progress (migration 0023). */
export interface UploadsTable {
  id: string;
  owner: string;
  /** Declared length; null while deferred. */
  size: number | null;
  /** Bytes received so far (the tus offset). */
  received: number;
  created_ms: number;
  /** JSON: the tus metadata and where the upload's bytes stand in the store. */
  state: string;
}

export interface ImportCopiesTable {
  source: string;
  pid: string;
  date_modified: number;
}

/** `d1node import`: a source's object that could not be copied, and why. */
export interface ImportFailuresTable {
  source: string;
  pid: string;
  reason: string;
  failed_at: number;
}

/** One fixity audit of the stored bytes (src/ops/audit.ts); `findings` is JSON, the first 100 at most. */
export interface AuditRunsTable {
  id: Generated<number>;
  trigger: string;
  started_at: number;
  finished_at: number;
  objects: number;
  bytes: number;
  mismatches: number;
  missing: number;
  repaired: number;
  findings: string;
}

/** The rows of `events` and `objects`, kept by triggers (migration 0015): the sum of a name's rows. */
export interface RowCountsTable {
  name: "events" | "objects";
  n: number | string;
}

/** A removed public object, for OAI-PMH's persistent deleted records (migration 0025-oai-tombstones). */
export interface OaiTombstonesTable {
  pid: string;
  format_id: string;
  /** When the object was removed (ms): its deleted record's datestamp. */
  date_deleted: number;
}

/** An object's usage in one month (migration 0026-usage-counts; src/db/usage/). */
export interface UsageCountsTable {
  pid: string;
  /** yyyymm, UTC. */
  month: number;
  total_investigations: number | string;
  unique_investigations: number | string;
  total_requests: number | string;
  unique_requests: number | string;
}

/** A dataset's usage in one month (migration 0026-usage-counts; src/db/usage/). */
export interface UsageDatasetCountsTable {
  /** The metadata object's PID. */
  dataset: string;
  /** yyyymm, UTC. */
  month: number;
  total_investigations: number | string;
  unique_investigations: number | string;
  total_requests: number | string;
  unique_requests: number | string;
}

/** How far the event log was counted into usage_counts (migration 0026-usage-counts). */
export interface UsageCursorTable {
  name: string;
  last_id: number | string;
  seen_id: number | string;
  /** Microseconds since the epoch (PostgreSQL's clock) when seen_id was read. */
  seen_at: number | string;
}

export interface Tables {
  audit_runs: AuditRunsTable;
  cn_equivalents: CnEquivalentsTable;
  cn_pending_maps: CnPendingMapsTable;
  cn_groups: CnGroupsTable;
  cn_nodes: CnNodesTable;
  cn_reservations: CnReservationsTable;
  cn_sync_tasks: CnSyncTasksTable;
  cn_accounts: CnAccountsTable;
  objects: ObjectsTable;
  identifiers: IdentifiersTable;
  access_rules: AccessRulesTable;
  events: EventsTable;
  blob_intents: BlobIntentsTable;
  sysmeta_refresh: SysmetaRefreshTable;
  search_docs: SearchDocsTable;
  search_values: SearchValuesTable;
  search_relations: SearchRelationsTable;
  search_rebuild: SearchRebuildTable;
  tasks: TasksTable;
  harvest_progress: HarvestProgressTable;
  log_aggregation: LogAggregationTable;
  replication_nodes: ReplicationNodesTable;
  import_progress: ImportProgressTable;
  import_failures: ImportFailuresTable;
  import_copies: ImportCopiesTable;
  uploads: UploadsTable;
  row_counts: RowCountsTable;
  oai_tombstones: OaiTombstonesTable;
  usage_counts: UsageCountsTable;
  usage_dataset_counts: UsageDatasetCountsTable;
  usage_cursor: UsageCursorTable;
  browser_sessions: BrowserSessionsTable;
  sign_in_requests: SignInRequestsTable;
  signed_in_people: SignedInPeopleTable;
  review_links: ReviewLinksTable;
}

/** Migration 0023-browser-sessions (src/db/browser-sessions.ts). */
export interface BrowserSessionsTable {
  id_hash: string;
  subject: string;
  full_name: string | null;
  provider: string;
  created_at: number;
  expires_at: number;
}

export interface SignInRequestsTable {
  state_hash: string;
  provider: string;
  code_verifier: string;
  nonce: string;
  target: string;
  expires_at: number;
}

export interface SignedInPeopleTable {
  subject: string;
  full_name: string | null;
  given_name: string | null;
  family_name: string | null;
  email: string | null;
  provider: string;
  first_signed_in: number;
  last_signed_in: number;
}

/** Migration 0027-review-links (src/db/review-links.ts). */
export interface ReviewLinksTable {
  id: string;
  secret_hash: string;
  pid: string;
  package_pid: string | null;
  rights_holder: string;
  created_by: string;
  anonymise: number;
  label: string | null;
  created_at: number;
  expires_at: number;
  revoked_at: number | null;
}
