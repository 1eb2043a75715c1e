/** The node's settings as the rest of the code receives them (validated and frozen by `resolveConfig`). */
import type { Schedule } from "../types/node.ts";

export type Role = "mn" | "cn";

/** Who may read the event log: "trusted" (CNs, administrators) or "readers" (anyone, for objects they may read). */
export type LogReaders = "trusted" | "readers";

/** When node-to-node calls carry the node's bearer token (see Config.nodeTokens). */
export type NodeTokens = "auto" | "always" | "never";
/** Who may read the metrics (GET {basePath}/metrics) or the status page: nobody, anyone, or node administrators. */
export type Exposure = "off" | "public" | "admin";

export interface Config {
  role: Role;
  host: string;
  port: number;
  /** Path under which the API is served, e.g. "/mn" (versions follow: /mn/v2/...). */
  basePath: string;
  /** Public base URL written into the Node document; derived from host, port and basePath when unset. */
  baseUrl: string;
  /** Folder for the embedded database, object bytes and the node's own signing key. */
  dataDir: string;
  /** postgres://... to use PostgreSQL; unset means SQLite inside dataDir. */
  databaseUrl: string | undefined;
  /** s3://bucket/prefix to keep object bytes in an S3-compatible bucket; unset: the folder `store` in dataDir. */
  store: string | undefined;
  /** The S3 endpoint (http(s)://host:port) of an S3-compatible server; unset: AWS. */
  storeEndpoint: string | undefined;
  /** The S3 region; unset: AWS_REGION, AWS_DEFAULT_REGION, else us-east-1. */
  storeRegion: string | undefined;
  /** Address the bucket in the path (http://endpoint/bucket), as most S3-compatible servers want. */
  storePathStyle: boolean;
  /** Seconds after which an unfinished S3 upload counts as a crash's leftover and is removed at start-up. */
  storeTempMaxAge: number;
  /**
   * Bytes per part of an S3 multipart upload (5 MiB to 5 GiB). An upload whose size is declared first gets larger
   * parts when it needs them; one of unknown size can hold 10,000 parts of this size.
   */
  storePartSize: number;
  nodeId: string;
  nodeName: string;
  nodeDescription: string;
  /**
   * The node's own subject (Node.subject, and who it is in its calls to other nodes). Default: the subject of
   * the node certificate's DN when `nodeCert` is set, otherwise `CN=<nodeId>,DC=dataone,DC=org`.
   */
  nodeSubject: string;
  /** PEM files of the node's client certificate (issued by the federation's CA) and its key: presented in calls. */
  nodeCert: string | undefined;
  nodeKey: string | undefined;
  /** CA bundles (PEM files) other nodes' server certificates must chain to; empty: the system's CAs. */
  peerCa: string[];
  /**
   * When calls to other nodes carry the node's own bearer token: "auto" (when no node certificate is presented:
   * none is configured, or the peer is plain http), "always", or "never".
   */
  nodeTokens: NodeTokens;
  contactSubject: string;
  /** The e-mail address of the node's administrator (OAI-PMH Identify's adminEmail). */
  adminEmail: string | undefined;
  /** Subjects with every right on this node. */
  adminSubjects: string[];
  /** Subjects of Coordinating Nodes (trusted for CN-only calls) when the node runs standalone. */
  cnSubjects: string[];
  /** Subjects (or "authenticatedUser") allowed to create and update objects. */
  submitters: string[];
  /** Extra PEM files (public keys or certificates) whose keys sign trusted bearer tokens. */
  trustedTokenKeys: string[];
  /** Longest bearer token lifetime accepted (exp - iat), seconds; 0: no cap (tokens must still carry exp). */
  maxTokenLifetime: number;
  /** PEM files of the server certificate (chain) and its key: when set, the node listens with HTTPS. */
  tlsCert: string | undefined;
  tlsKey: string | undefined;
  /** CA bundles (PEM files) client certificates must chain to; unset: no client certificate is asked for. */
  clientCa: string[];
  /** Shared secret a TLS-terminating proxy sends; only requests carrying it may forward client credentials. */
  proxySecret: string | undefined;
  proxySecretHeader: string;
  /** Header carrying the client certificate PEM (plain, URL-encoded, or with newlines as spaces). */
  proxyCertHeader: string;
  /** Header carrying the verified client DN (used when no certificate is forwarded). */
  proxyDnHeader: string;
  /** Header carrying the proxy's verification result (SUCCESS, NONE, FAILED:reason). */
  proxyVerifyHeader: string;
  /** Header whose last entry is the client address the proxy saw (the source isAuthorized limits count). */
  proxyClientAddressHeader: string;
  /** Base URL of the Coordinating Node (e.g. https://cn.dataone.org/cn); unset: standalone, no lookups. */
  cnBaseUrl: string | undefined;
  /** After a create, update, updateSystemMetadata or archive, ask the CN (cnBaseUrl) to synchronize the object. */
  notifyCn: boolean;
  /** Seconds a CN answer on a subject's groups and identities is reused. */
  cnSubjectInfoTtl: number;
  logReaders: LogReaders;
  /** CN: seconds between two runs of log aggregation from the Member Nodes; 0: no aggregation. */
  logAggregationSeconds: number;
  /** isAuthorized calls one source may make per minute before being blocked; 0: no limit. */
  isAuthorizedLimit: number;
  /** Seconds a source that went over the isAuthorized limit stays blocked. */
  isAuthorizedBlockSeconds: number;
  /**
   * Browser origins whose requests may be authenticated by the user's client certificate, e.g. the node's
   * MetacatUI; any other origin's browser requests count only a bearer token (CORS answers every origin).
   */
  corsOrigins: string[];
  /** OpenID Connect providers people sign in with and whose access tokens count (src/config/oidc-settings.ts). */
  oidcProviders: OidcProvider[];
  /**
   * Where the providers send browsers back, before /portal/callback (the redirect URI registered with each
   * provider is {signInRedirectBase}/portal/callback); unset: baseUrl.
   */
  signInRedirectBase: string | undefined;
  /** Seconds a browser sign-in lasts before the person signs in again. */
  signInSessionLifetime: number;
  /**
   * A MetacatUI folder (the one holding index.html and loader.js) served at the origin's root as the node's
   * website, with a config/config.js made from these settings; unset: the node's own home page.
   */
  website: string | undefined;
  /** Largest XML document part of a request (system metadata, access policy, node, ...), bytes. */
  maxDocumentBytes: number;
  /** Bytes of request text parts the node buffers at once over all requests; more: ServiceFailure. */
  maxBufferedTextBytes: number;
  /** Crontab-style harvest schedule advertised to the CN. */
  syncSchedule: Schedule;
  /** Member Node: accept replicas from other nodes (MNReplication.replicate; Node attribute replicate). */
  replicate: boolean;
  /** Member Node: nodeReplicationPolicy maxObjectSize, bytes (unset: no limit). */
  replicationMaxObjectSize: number | undefined;
  /** Member Node: nodeReplicationPolicy spaceAllocated, total bytes of replicas held (unset: no limit). */
  replicationSpaceAllocated: number | undefined;
  /** Member Node: nodeReplicationPolicy allowedNode, the nodes replicas may come from (empty: any). */
  replicationAllowedNodes: string[];
  /** Member Node: nodeReplicationPolicy allowedObjectFormat, the formats accepted as replicas (empty: any). */
  replicationAllowedFormats: string[];
  /** Coordinating Node: seconds a queued or requested replica may wait for its completion before it is failed. */
  replicationRequestTimeout: number;
  /** Coordinating Node: seconds between scans for objects short of replicas (0: no periodic scan). */
  replicationScanInterval: number;
  /** Coordinating Node: seconds between two pings of each approved Member Node (0: no pings). */
  nodePingInterval: number;
  /** Coordinating Node: seconds between replica audits (0: no audits). */
  replicaAuditInterval: number;
  /** Coordinating Node: a completed replica verified less than this many seconds ago is not audited again. */
  replicaAuditAge: number;
  /** Seconds between scheduled fixity audits of every stored object (0: none; `d1node audit` runs one at once). */
  auditInterval: number;
  /** MiB per second a scheduled audit reads at most (0: no limit). */
  auditRate: number;
  /** A scheduled audit fetches a good copy of bad or missing bytes from another holder (through cnBaseUrl). */
  auditRepair: boolean;
  /** Seconds an upload (a multipart body) may send nothing before it is ended (InvalidRequest, connection closed). */
  uploadIdleTimeout: number;
  /** Largest resumable upload (tus, {basePath}/uploads), bytes. */
  uploadMaxSize: number;
  /** Seconds after its creation when a resumable upload not used by a create or update is removed. */
  uploadExpiry: number;
  /** Uploads one subject may hold at once (made and not yet used up or expired). */
  uploadMaxOpen: number;
  /**
   * Identifiers one subject may hold reserved and not yet used (CNCore.reserveIdentifier, generated UUIDs and
   * DOIs); one more is NotAuthorized. Administrators and Coordinating Nodes are not counted.
   */
  reservationMaxOpen: number;
  /** URLs in one file of /sitemap.xml's index (the sitemaps protocol's limit, 50,000, by default). */
  sitemapFileUrls: number;
  /**
   * Whether a client's create / update of a resource map needs every object it aggregates on this node (`local`)
   * or accepts objects held elsewhere (`anywhere`).
   */
  packageMembers: "local" | "anywhere";
  /** PostgreSQL: seconds one statement may run before the server cancels it (ServiceFailure). */
  databaseStatementTimeout: number;
  /** Bytes the search engine's memory may hold; over it, searches are answered by SQL alone (src/search). */
  searchMemoryBudget: number;
  /** PostgreSQL: seconds to wait for a connection (a new one, or a free one from the pool). */
  databaseConnectTimeout: number;
  /** PostgreSQL: connections this process keeps open at most (its pool). */
  databasePoolSize: number;
  /**
   * SQLite: a write is answered once its commit is on disk (true), or once committed in the process (false: a
   * power cut or OS crash may lose the last acknowledged writes; a crash of the process alone loses none).
   */
  sqliteDurableCommits: boolean;
  /**
   * Whether the node indexes, in the background from its start, the objects without a search document (true);
   * false leaves them to `d1node index --missing`, run when the operator chooses.
   */
  indexCatchUp: boolean;
  /**
   * Seconds a serving process, told to stop, keeps answering while its ping fails (so that a balancer's health
   * check takes it out first), before it stops accepting connections (0: stops at once).
   */
  shutdownGrace: number;
  /** This process's own Prometheus scrape target, GET /metrics on this port (absent: none; 0 picks a free one). */
  metricsPort: number | undefined;
  /** The address metricsPort listens on. */
  metricsHost: string;
  /** Prometheus metrics at {basePath}/metrics: off, public, or admin (an authenticated administrator subject). */
  metrics: Exposure;
  /** The operators' status page at {basePath}/status: off, public, or admin. */
  statusPage: Exposure;
  /**
   * DOIs: the DataCite prefix the node mints under (e.g. 10.5072); unset: no DOIs (generateIdentifier knows UUID
   * only, and MNStorage publish answers NotImplemented).
   */
  doiPrefix: string | undefined;
  /** Text every minted suffix starts with (a "shoulder", e.g. "d1."), after the prefix and its slash. */
  doiShoulder: string;
  /** How the rest of a suffix is made: "random" (8 characters of Crockford base32, as DataCite's) or "uuid". */
  doiSuffix: "random" | "uuid";
  /** DataCite's REST API: https://api.test.datacite.org (test) or https://api.datacite.org (production). */
  dataciteUrl: string;
  /** The DataCite repository account (its repository ID, e.g. ABCD.EFGH) DOIs are registered with. */
  dataciteRepository: string | undefined;
  /**
   * A file holding the repository account's password (the first line). Else the environment variable
   * D1NODE_DATACITE_PASSWORD. The password is never a setting of its own, so that it is never shown or logged.
   */
  datacitePasswordFile: string | undefined;
  /**
   * The landing page a DOI resolves to, with {pid} for the URL-encoded identifier, e.g. MetacatUI's
   * https://search.example.org/view/{pid}. Unset: the node's own view, {baseUrl}/v2/views/default/{pid}.
   */
  doiLandingPage: string | undefined;
  /** Seconds a DataCite call may take before it counts as failed (and is retried later). */
  dataciteTimeout: number;
  logLevel: string;
  /** How log lines are written: "text" (readable lines, for a terminal or the journal) or "json" (one JSON object per line, for log shippers). */
  logFormat: "text" | "json";
}

/** One OpenID Connect provider (an entry of oidcProviders). */
export interface OidcProvider {
  /** Short name, chosen with ?provider= at sign-in; the first provider with signIn is the default. */
  name: string;
  /** The issuer URL; its /.well-known/openid-configuration is read when first needed. */
  issuer: string;
  clientId: string;
  /** A file holding the client secret (none: a public client, PKCE alone). */
  clientSecretFile?: string;
  /** An environment variable holding the client secret. */
  clientSecretEnv?: string;
  /** Scopes asked for at sign-in (default: openid profile email). */
  scopes: string[];
  /**
   * Claims tried in order for the person's DataONE subject (default: sub); an ORCID iD in any form becomes
   * http://orcid.org/0000-...; any other value (an LDAP DN, a CILogon subject) is taken as it is.
   */
  subjectClaims: string[];
  /** Audiences an access token brought as a bearer token must name one of (default: the client id). */
  audiences: string[];
  /** Offered for browser sign-in (false: only its access tokens are accepted). */
  signIn: boolean;
}

export type ConfigInput = Partial<Record<keyof Config, unknown>>;
