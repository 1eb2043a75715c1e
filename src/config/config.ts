/**
 * Typed configuration: defaults <- config file (JSON) <- environment (D1NODE_*) <- command-line flags.
 * Validated once at start-up; the rest of the code receives a frozen `Config`.
 */
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { certificateSubject } from "../certificates/node-certificate.ts";
import { doiSettings } from "./doi-settings.ts";
import { oidcProviders } from "./oidc-settings.ts";
import { parseS3Url } from "./s3-location.ts";
import { S3_MAX_PART, S3_MIN_PART } from "./s3-part-size.ts";
import type { Config, ConfigInput } from "./types.ts";
import {
  boolean,
  email,
  headerName,
  integer,
  list,
  normaliseBasePath,
  oneOf,
  optionalInteger,
  optionalText,
  text,
} from "./validators.ts";

export type { Config, ConfigInput, Exposure, LogReaders, NodeTokens, OidcProvider, Role } from "./types.ts";

const NODE_ID = /^urn:node:\w{2,23}$/;

export function defaultConfig(): Config {
  return {
    role: "mn",
    host: "127.0.0.1",
    port: 8080,
    basePath: "/mn",
    baseUrl: "",
    dataDir: "d1node-data",
    databaseUrl: undefined,
    store: undefined,
    storeEndpoint: undefined,
    storeRegion: undefined,
    storePathStyle: false,
    storeTempMaxAge: 86_400,
    storePartSize: 8 << 20,
    nodeId: "urn:node:d1node",
    nodeName: "d1node Member Node",
    nodeDescription: "A DataONE Member Node served by d1node",
    nodeSubject: "",
    nodeCert: undefined,
    nodeKey: undefined,
    peerCa: [],
    nodeTokens: "auto",
    contactSubject: "CN=d1node administrator,DC=dataone,DC=org",
    adminEmail: undefined,
    adminSubjects: [],
    cnSubjects: [],
    submitters: ["authenticatedUser"],
    trustedTokenKeys: [],
    maxTokenLifetime: 86_400,
    tlsCert: undefined,
    tlsKey: undefined,
    clientCa: [],
    proxySecret: undefined,
    proxySecretHeader: "X-Proxy-Secret",
    proxyCertHeader: "X-SSL-Client-Cert",
    proxyDnHeader: "X-SSL-Client-DN",
    proxyVerifyHeader: "X-SSL-Client-Verify",
    proxyClientAddressHeader: "X-Forwarded-For",
    cnBaseUrl: undefined,
    notifyCn: true,
    cnSubjectInfoTtl: 300,
    logReaders: "trusted",
    logAggregationSeconds: 900,
    isAuthorizedLimit: 600,
    isAuthorizedBlockSeconds: 300,
    corsOrigins: [],
    oidcProviders: [],
    signInRedirectBase: undefined,
    signInSessionLifetime: 12 * 3600,
    website: undefined,
    maxDocumentBytes: 1024 * 1024,
    maxBufferedTextBytes: 64 * 1024 * 1024,
    syncSchedule: { sec: "0", min: "0/3", hour: "*", mday: "*", mon: "*", wday: "?", year: "*" },
    replicate: false,
    replicationMaxObjectSize: undefined,
    replicationSpaceAllocated: undefined,
    replicationAllowedNodes: [],
    replicationAllowedFormats: [],
    replicationRequestTimeout: 3600,
    replicationScanInterval: 600,
    nodePingInterval: 30,
    replicaAuditInterval: 3600,
    replicaAuditAge: 30 * 86_400,
    auditInterval: 7 * 86_400,
    auditRate: 20,
    auditRepair: false,
    uploadIdleTimeout: 60,
    uploadMaxSize: 2 ** 40,
    uploadExpiry: 7 * 86_400,
    uploadMaxOpen: 100,
    reservationMaxOpen: 1000,
    sitemapFileUrls: 50_000,
    packageMembers: "local",
    databaseStatementTimeout: 30,
    searchMemoryBudget: 2 ** 30,
    databaseConnectTimeout: 10,
    databasePoolSize: 10,
    sqliteDurableCommits: true,
    indexCatchUp: true,
    shutdownGrace: 0,
    metricsPort: undefined,
    metricsHost: "127.0.0.1",
    metrics: "admin",
    statusPage: "admin",
    doiPrefix: undefined,
    doiShoulder: "",
    doiSuffix: "random",
    dataciteUrl: "https://api.test.datacite.org",
    dataciteRepository: undefined,
    datacitePasswordFile: undefined,
    doiLandingPage: undefined,
    dataciteTimeout: 30,
    logLevel: "info",
    logFormat: "text",
  };
}

/** Environment variables: D1NODE_ + the key in upper snake case (D1NODE_DATA_DIR, D1NODE_ADMIN_SUBJECTS, ...). */
export function configFromEnv(env: NodeJS.ProcessEnv): ConfigInput {
  const out: ConfigInput = {};
  for (const key of Object.keys(defaultConfig()) as (keyof Config)[]) {
    const name = `D1NODE_${key.replace(/[A-Z]/g, (c) => `_${c}`).toUpperCase()}`;
    const value = env[name];
    if (value !== undefined && value !== "") out[key] = value;
  }
  return out;
}

/** The settings of a JSON config file; a file that is absent, unreadable or not JSON is said so, with the line. */
export function configFromFile(file: string): ConfigInput {
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ENOENT") throw new Error(`config file ${file} does not exist`);
    if (code === "EACCES" || code === "EPERM")
      throw new Error(`cannot read config file ${file}: permission denied`);
    if (code === "EISDIR") throw new Error(`config file ${file} is a folder`);
    throw error;
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    throw new Error(
      `config file ${file}${jsonErrorPlace(text, (error as Error).message)}: not JSON: ${jsonErrorReason(error)}`,
    );
  }
  if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) {
    throw new Error(`config file ${file}: expected a JSON object`);
  }
  return parsed as ConfigInput;
}

/** ", line L column C" of a JSON.parse failure (V8 names the character offset), or "" when it names none. */
function jsonErrorPlace(text: string, message: string): string {
  const at = /position (\d+)/.exec(message);
  const offset = at ? Number(at[1]) : /end of JSON input/.test(message) ? text.length : undefined;
  if (offset === undefined) return "";
  const before = text.slice(0, offset).split("\n");
  return `, line ${before.length} column ${(before[before.length - 1]?.length ?? 0) + 1}`;
}

/** V8's reason without its place (given as line and column instead). */
function jsonErrorReason(error: unknown): string {
  return (error as Error).message
    .replace(/ in JSON at position \d+.*$/, "")
    .replace(/ \(line \d+ column \d+\)$/, "");
}

/** Merge layers (later wins) and validate. Throws an Error naming the bad setting. */
export function resolveConfig(...layers: ConfigInput[]): Readonly<Config> {
  const merged = defaultConfig() as unknown as Record<string, unknown>;
  for (const layer of layers) {
    for (const [key, value] of Object.entries(layer)) {
      if (value === undefined) continue;
      if (!(key in merged)) throw new Error(`unknown setting "${key}"`);
      merged[key] = value;
    }
  }
  const c = merged as unknown as Config;
  const config: Config = {
    ...c,
    role: oneOf("role", c.role, ["mn", "cn"]),
    host: text("host", c.host),
    port: integer("port", c.port, 0, 65535),
    basePath: normaliseBasePath(text("basePath", c.basePath)),
    dataDir: path.resolve(text("dataDir", c.dataDir)),
    databaseUrl: databaseUrl(c.databaseUrl),
    store: storeLocation(optionalText("store", c.store)),
    storeEndpoint: optionalText("storeEndpoint", c.storeEndpoint)?.replace(/\/+$/, ""),
    storeRegion: optionalText("storeRegion", c.storeRegion),
    storePathStyle: boolean("storePathStyle", c.storePathStyle),
    storeTempMaxAge: integer("storeTempMaxAge", c.storeTempMaxAge, 0, 30 * 86_400),
    storePartSize: integer("storePartSize", c.storePartSize, S3_MIN_PART, S3_MAX_PART),
    nodeId: text("nodeId", c.nodeId),
    adminSubjects: list("adminSubjects", c.adminSubjects),
    cnSubjects: list("cnSubjects", c.cnSubjects),
    submitters: list("submitters", c.submitters),
    trustedTokenKeys: list("trustedTokenKeys", c.trustedTokenKeys),
    maxTokenLifetime: integer("maxTokenLifetime", c.maxTokenLifetime, 0, 366 * 86_400),
    tlsCert: optionalText("tlsCert", c.tlsCert),
    tlsKey: optionalText("tlsKey", c.tlsKey),
    clientCa: list("clientCa", c.clientCa),
    nodeCert: optionalText("nodeCert", c.nodeCert),
    adminEmail: email("adminEmail", c.adminEmail),
    nodeKey: optionalText("nodeKey", c.nodeKey),
    peerCa: list("peerCa", c.peerCa),
    nodeTokens: oneOf("nodeTokens", c.nodeTokens, ["auto", "always", "never"]),
    proxySecret: optionalText("proxySecret", c.proxySecret),
    proxySecretHeader: headerName("proxySecretHeader", c.proxySecretHeader),
    proxyCertHeader: headerName("proxyCertHeader", c.proxyCertHeader),
    proxyDnHeader: headerName("proxyDnHeader", c.proxyDnHeader),
    proxyVerifyHeader: headerName("proxyVerifyHeader", c.proxyVerifyHeader),
    proxyClientAddressHeader: headerName("proxyClientAddressHeader", c.proxyClientAddressHeader),
    cnBaseUrl: optionalText("cnBaseUrl", c.cnBaseUrl)?.replace(/\/+$/, ""),
    notifyCn: boolean("notifyCn", c.notifyCn),
    cnSubjectInfoTtl: integer("cnSubjectInfoTtl", c.cnSubjectInfoTtl, 0, 86_400),
    logReaders: oneOf("logReaders", c.logReaders, ["trusted", "readers"]),
    logAggregationSeconds: integer("logAggregationSeconds", c.logAggregationSeconds, 0, 7 * 86_400),
    isAuthorizedLimit: integer("isAuthorizedLimit", c.isAuthorizedLimit, 0, 1_000_000),
    isAuthorizedBlockSeconds: integer("isAuthorizedBlockSeconds", c.isAuthorizedBlockSeconds, 1, 86_400),
    corsOrigins: list("corsOrigins", c.corsOrigins).map(corsOrigin),
    oidcProviders: oidcProviders(c.oidcProviders),
    signInRedirectBase: optionalText("signInRedirectBase", c.signInRedirectBase)?.replace(/\/+$/, ""),
    signInSessionLifetime: integer("signInSessionLifetime", c.signInSessionLifetime, 60, 30 * 86_400),
    website: website(optionalText("website", c.website)),
    maxDocumentBytes: integer("maxDocumentBytes", c.maxDocumentBytes, 16 * 1024, 1024 * 1024 * 1024),
    maxBufferedTextBytes: integer("maxBufferedTextBytes", c.maxBufferedTextBytes, 16 * 1024, 2 ** 40),
    replicate: boolean("replicate", c.replicate),
    replicationMaxObjectSize: optionalInteger("replicationMaxObjectSize", c.replicationMaxObjectSize),
    replicationSpaceAllocated: optionalInteger("replicationSpaceAllocated", c.replicationSpaceAllocated),
    replicationAllowedNodes: list("replicationAllowedNodes", c.replicationAllowedNodes),
    replicationAllowedFormats: list("replicationAllowedFormats", c.replicationAllowedFormats),
    replicationRequestTimeout: integer(
      "replicationRequestTimeout",
      c.replicationRequestTimeout,
      1,
      30 * 86_400,
    ),
    replicationScanInterval: integer("replicationScanInterval", c.replicationScanInterval, 0, 30 * 86_400),
    nodePingInterval: integer("nodePingInterval", c.nodePingInterval, 0, 86_400),
    replicaAuditInterval: integer("replicaAuditInterval", c.replicaAuditInterval, 0, 30 * 86_400),
    replicaAuditAge: integer("replicaAuditAge", c.replicaAuditAge, 0, 3650 * 86_400),
    auditInterval: integer("auditInterval", c.auditInterval, 0, 366 * 86_400),
    auditRate: integer("auditRate", c.auditRate, 0, 1_000_000),
    auditRepair: boolean("auditRepair", c.auditRepair),
    uploadIdleTimeout: integer("uploadIdleTimeout", c.uploadIdleTimeout, 1, 86_400),
    uploadMaxSize: integer("uploadMaxSize", c.uploadMaxSize, 1, Number.MAX_SAFE_INTEGER),
    uploadExpiry: integer("uploadExpiry", c.uploadExpiry, 1, 366 * 86_400),
    shutdownGrace: integer("shutdownGrace", c.shutdownGrace, 0, 3600),
    metricsPort: c.metricsPort === undefined ? undefined : integer("metricsPort", c.metricsPort, 0, 65_535),
    metricsHost: text("metricsHost", c.metricsHost),
    uploadMaxOpen: integer("uploadMaxOpen", c.uploadMaxOpen, 1, 1_000_000),
    reservationMaxOpen: integer("reservationMaxOpen", c.reservationMaxOpen, 1, 10_000_000),
    sitemapFileUrls: integer("sitemapFileUrls", c.sitemapFileUrls, 2, 50_000),
    packageMembers: oneOf("packageMembers", c.packageMembers, ["local", "anywhere"]),
    databaseStatementTimeout: integer("databaseStatementTimeout", c.databaseStatementTimeout, 1, 86_400),
    databaseConnectTimeout: integer("databaseConnectTimeout", c.databaseConnectTimeout, 1, 3600),
    searchMemoryBudget: integer("searchMemoryBudget", c.searchMemoryBudget, 0, Number.MAX_SAFE_INTEGER),
    databasePoolSize: integer("databasePoolSize", c.databasePoolSize, 1, 1000),
    sqliteDurableCommits: boolean("sqliteDurableCommits", c.sqliteDurableCommits),
    indexCatchUp: boolean("indexCatchUp", c.indexCatchUp),
    metrics: oneOf("metrics", c.metrics, ["off", "public", "admin"]),
    statusPage: oneOf("statusPage", c.statusPage, ["off", "public", "admin"]),
    ...doiSettings(c),
    logLevel: oneOf("logLevel", c.logLevel, ["fatal", "error", "warn", "info", "debug", "trace", "silent"]),
    logFormat: oneOf("logFormat", c.logFormat, ["text", "json"]),
  };
  checkAuthSettings(config);
  if (!NODE_ID.test(config.nodeId)) {
    throw new Error(
      `nodeId "${config.nodeId}" must look like urn:node: followed by 2-23 letters, digits or _`,
    );
  }
  config.nodeSubject = nodeSubjectOf(config, optionalText("nodeSubject", c.nodeSubject));
  if (config.role === "cn" && c.basePath === defaultConfig().basePath) config.basePath = "/cn";
  // A Coordinating Node's default name and description say so (settings given explicitly are kept).
  if (config.role === "cn" && c.nodeName === defaultConfig().nodeName)
    config.nodeName = "d1node Coordinating Node";
  if (config.role === "cn" && c.nodeDescription === defaultConfig().nodeDescription)
    config.nodeDescription = "A DataONE Coordinating Node served by d1node";
  // The contact is a person: without one named, the first administrator rather than a made-up subject.
  const firstAdmin = config.adminSubjects[0];
  if (c.contactSubject === defaultConfig().contactSubject && firstAdmin) config.contactSubject = firstAdmin;
  config.baseUrl = c.baseUrl
    ? text("baseUrl", c.baseUrl).replace(/\/+$/, "")
    : `${config.tlsCert ? "https" : "http"}://${config.host.includes(":") ? `[${config.host}]` : config.host}:${config.port}${config.basePath}`;
  return Object.freeze(config);
}

/**
 * `databaseUrl`: unset (the embedded SQLite database in the data folder) or a PostgreSQL URL. Anything else is
 * refused rather than read as "unset": a typo (`pg://`, `mysql://`, a stray space) must not quietly start an
 * empty SQLite node beside the real database. The value is not echoed: it may hold a password.
 */
function databaseUrl(value: unknown): string | undefined {
  if (value === undefined || value === "") return undefined;
  if (typeof value !== "string" || !/^postgres(ql)?:\/\/[^\s]+$/i.test(value)) {
    throw new Error(
      'setting "databaseUrl" must be a PostgreSQL URL starting with postgres:// or postgresql:// ' +
        "(no spaces); leave it unset for the embedded SQLite database in the data folder",
    );
  }
  return value;
}

/** `store`: unset or an s3:// location (checked here, so that a typo stops the node at start-up). */
function storeLocation(value: string | undefined): string | undefined {
  if (value === undefined || value === "") return undefined;
  try {
    parseS3Url(value);
  } catch (error) {
    throw new Error(`setting "store": ${(error as Error).message}`);
  }
  return value;
}

/** Settings that only make sense together, and subjects that must not grant node-wide rights. */
function checkAuthSettings(config: Config): void {
  if ((config.tlsCert === undefined) !== (config.tlsKey === undefined)) {
    throw new Error('settings "tlsCert" and "tlsKey" must be given together');
  }
  if ((config.nodeCert === undefined) !== (config.nodeKey === undefined)) {
    throw new Error('settings "nodeCert" and "nodeKey" must be given together');
  }
  if (config.proxySecret !== undefined && config.proxySecret.length < 16) {
    throw new Error('setting "proxySecret" must be at least 16 characters long');
  }
  if (config.replicate && config.role === "mn" && config.cnBaseUrl === undefined) {
    throw new Error('setting "replicate" needs "cnBaseUrl": replicas are pulled from nodes the CN lists');
  }
  if (config.storeEndpoint !== undefined && !/^https?:\/\/[^/]/.test(config.storeEndpoint)) {
    throw new Error('setting "storeEndpoint" must be an http(s) URL such as http://127.0.0.1:7480');
  }
  if (config.signInRedirectBase !== undefined && !/^https?:\/\/[^/]/.test(config.signInRedirectBase)) {
    throw new Error('setting "signInRedirectBase" must be an http(s) URL');
  }
  if (config.cnBaseUrl !== undefined && !/^https?:\/\/[^/]/.test(config.cnBaseUrl)) {
    throw new Error('setting "cnBaseUrl" must be an http(s) URL');
  }
  const symbolic = ["public", "authenticatedUser", "verifiedUser"];
  for (const name of ["adminSubjects", "cnSubjects"] as const) {
    const bad = config[name].find((s) => symbolic.includes(s));
    if (bad) throw new Error(`setting "${name}" cannot contain the symbolic subject "${bad}"`);
  }
}

/**
 * Node.subject: "the subject of the node's X.509 certificate" (DataONE issues each node a certificate whose DN
 * is CN=urn:node:ID,DC=dataone,DC=org). An explicit setting wins; then the node certificate's DN; then that
 * pattern for nodeId.
 */
function nodeSubjectOf(config: Config, explicit: string | undefined): string {
  if (explicit !== undefined) return explicit;
  if (config.nodeCert !== undefined) return certificateSubject(config.nodeCert, "nodeCert");
  return `CN=${config.nodeId},DC=dataone,DC=org`;
}

/** A browser origin as the Origin header carries it: scheme://host[:port], no path; "*" and "null" are refused. */
function corsOrigin(value: string): string {
  const origin = value.trim().replace(/\/+$/, "");
  let parsed: URL | undefined;
  try {
    parsed = new URL(origin);
  } catch {}
  if (!parsed || parsed.origin !== origin.toLowerCase() || !/^https?:$/.test(parsed.protocol)) {
    throw new Error(
      `setting "corsOrigins": "${value}" is not an origin such as https://search.example.org; list only the ` +
        "origins trusted with users' credentials (any origin may read the public API without them)",
    );
  }
  return parsed.origin;
}

/** The website folder must hold MetacatUI's index.html and loader.js: a wrong folder is found at start-up. */
function website(dir: string | undefined): string | undefined {
  if (dir === undefined) return undefined;
  const full = path.resolve(dir);
  for (const file of ["index.html", "loader.js"]) {
    if (!existsSync(path.join(full, file))) {
      throw new Error(
        `setting "website": ${full} has no ${file}; give the folder of MetacatUI that holds it`,
      );
    }
  }
  return full;
}
