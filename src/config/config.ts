/**
 * Typed configuration: defaults <- config file (JSON) <- environment (D1NODE_*) <- command-line flags.
 * Validated once at start-up; the rest of the code receives a frozen `Config`.
 */
import { readFileSync } from "node:fs";
import path from "node:path";
import type { Schedule } from "../types/node.ts";

export type Role = "mn" | "cn";

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
  nodeId: string;
  nodeName: string;
  nodeDescription: string;
  /** The node's own subject (Node.subject). */
  nodeSubject: string;
  contactSubject: string;
  /** Subjects with every right on this node. */
  adminSubjects: string[];
  /** Subjects of Coordinating Nodes (trusted for CN-only calls) when the node runs standalone. */
  cnSubjects: string[];
  /** Subjects (or "authenticatedUser") allowed to create and update objects. */
  submitters: string[];
  /** Extra PEM files (public keys or certificates) whose keys sign trusted bearer tokens. */
  trustedTokenKeys: string[];
  /** Accept Origin headers from these origins (CORS); "*" echoes any origin. */
  corsOrigins: string[];
  /** Crontab-style harvest schedule advertised to the CN. */
  syncSchedule: Schedule;
  logLevel: string;
}

export type ConfigInput = Partial<Record<keyof Config, unknown>>;

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
    nodeId: "urn:node:d1node",
    nodeName: "d1node Member Node",
    nodeDescription: "A DataONE Member Node served by d1node",
    nodeSubject: "CN=urn:node:d1node,DC=dataone,DC=org",
    contactSubject: "CN=d1node administrator,DC=dataone,DC=org",
    adminSubjects: [],
    cnSubjects: [],
    submitters: ["authenticatedUser"],
    trustedTokenKeys: [],
    corsOrigins: ["*"],
    syncSchedule: { sec: "0", min: "0/3", hour: "*", mday: "*", mon: "*", wday: "?", year: "*" },
    logLevel: "info",
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

export function configFromFile(file: string): ConfigInput {
  const parsed: unknown = JSON.parse(readFileSync(file, "utf8"));
  if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) {
    throw new Error(`config file ${file}: expected a JSON object`);
  }
  return parsed as ConfigInput;
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
    databaseUrl:
      c.databaseUrl === undefined || c.databaseUrl === "" ? undefined : text("databaseUrl", c.databaseUrl),
    nodeId: text("nodeId", c.nodeId),
    adminSubjects: list("adminSubjects", c.adminSubjects),
    cnSubjects: list("cnSubjects", c.cnSubjects),
    submitters: list("submitters", c.submitters),
    trustedTokenKeys: list("trustedTokenKeys", c.trustedTokenKeys),
    corsOrigins: list("corsOrigins", c.corsOrigins),
  };
  if (!NODE_ID.test(config.nodeId)) {
    throw new Error(
      `nodeId "${config.nodeId}" must look like urn:node: followed by 2-23 letters, digits or _`,
    );
  }
  if (config.role === "cn" && c.basePath === defaultConfig().basePath) config.basePath = "/cn";
  config.baseUrl = c.baseUrl
    ? text("baseUrl", c.baseUrl).replace(/\/+$/, "")
    : `http://${config.host.includes(":") ? `[${config.host}]` : config.host}:${config.port}${config.basePath}`;
  return Object.freeze(config);
}

function normaliseBasePath(value: string): string {
  const trimmed = value.replace(/^\/+|\/+$/g, "");
  return trimmed === "" ? "" : `/${trimmed}`;
}

function text(name: string, value: unknown): string {
  if (typeof value !== "string" || value.trim() === "")
    throw new Error(`setting "${name}" must be a non-empty string`);
  return value.trim();
}

function integer(name: string, value: unknown, min: number, max: number): number {
  const n = typeof value === "string" ? Number(value) : value;
  if (typeof n !== "number" || !Number.isInteger(n) || n < min || n > max) {
    throw new Error(`setting "${name}" must be an integer from ${min} to ${max}`);
  }
  return n;
}

function oneOf<T extends string>(name: string, value: unknown, allowed: readonly T[]): T {
  if (typeof value === "string" && (allowed as readonly string[]).includes(value)) return value as T;
  throw new Error(`setting "${name}" must be one of ${allowed.join(", ")}`);
}

/** A list from a JSON array or from a string separated by ";" (subjects contain commas). */
function list(name: string, value: unknown): string[] {
  if (Array.isArray(value) && value.every((v) => typeof v === "string")) return value;
  if (typeof value === "string") {
    return value
      .split(";")
      .map((s) => s.trim())
      .filter((s) => s !== "");
  }
  throw new Error(`setting "${name}" must be a list of strings (JSON array, or ";"-separated)`);
}
