/** What every benchmark section receives. */
export interface SectionOptions {
  /** PostgreSQL server URL (a database is created on it per section): DB-bound sections run there too. */
  postgres?: string;
  /** Seconds per wrk run (default 5). */
  seconds: number;
  /** Runs per figure (default 3; the median is reported). */
  runs: number;
  /** Size of the resumable section's object, GiB (default 20). */
  uploadGiB: number;
  /** The soak's own settings. */
  soak: SoakOptions;
}

export interface SoakOptions {
  /** How long the soak runs (default 30). */
  minutes: number;
  /** How long the node may keep a stalled upload open, in seconds (default 120). */
  stallSeconds: number;
  /** Largest acceptable RSS trend over the second half, MB per 10 minutes (default 10). */
  rssTrendMb: number;
  /** Concurrent honest clients (default 3). */
  clients: number;
}

export type Section = (options: SectionOptions) => Promise<void>;

/** The dialects a DB-bound section runs on: SQLite, and PostgreSQL when a URL was given. */
export function databases(options: SectionOptions): (string | undefined)[] {
  return options.postgres ? [undefined, options.postgres] : [undefined];
}
