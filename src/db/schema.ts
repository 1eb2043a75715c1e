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

/** CN node registry: the Node document (v2 XML) of each registered node; pending until approved. */
export interface CnNodesTable {
  node_id: string;
  base_url: string;
  node_xml: string;
  approved: number;
  registered_by: string;
  registered_at: number;
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

/** Search index: one row per indexed object (src/search/index-store.ts). */
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
  /** SQLite: rowid of the document's terms in the FTS5 table search_terms (src/search/terms.ts). */
  term_id?: number | null;
  /** PostgreSQL: the document's text-field terms (src/search/terms.ts), GIN-indexed. */
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

export interface Tables {
  cn_equivalents: CnEquivalentsTable;
  cn_pending_maps: CnPendingMapsTable;
  cn_groups: CnGroupsTable;
  cn_nodes: CnNodesTable;
  cn_reservations: CnReservationsTable;
  cn_sync_tasks: CnSyncTasksTable;
  cn_accounts: CnAccountsTable;
  objects: ObjectsTable;
  access_rules: AccessRulesTable;
  events: EventsTable;
  blob_intents: BlobIntentsTable;
  sysmeta_refresh: SysmetaRefreshTable;
  search_docs: SearchDocsTable;
  search_values: SearchValuesTable;
  search_relations: SearchRelationsTable;
}
