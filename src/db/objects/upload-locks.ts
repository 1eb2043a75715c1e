/**
 * Resumable uploads held across processes. Serving processes on one PostgreSQL database may share one data folder
 * (or, later, one place for uploads): two requests writing one upload at once, in two processes, would both pass
 * tus's offset check and write over each other, and each process's running digests would then describe bytes
 * the file does not hold. An upload is held with a session-level advisory lock on a connection of its own (not a
 * pooled one: a PATCH may last hours), so a process that dies lets go of its uploads at once. A hold that the
 * connection's loss ended unseen is reported lost at release, so the holder distrusts what it computed meanwhile.
 * SQLite belongs to one process: its in-process exclusion (src/uploads/upload-locker.ts) is all there is to do.
 */
import type pg from "pg";

export interface UploadLocks {
  /** Holds upload `id` for this process; undefined when another process holds it. One hold per id at a time. */
  tryHold(id: string): Promise<HeldUpload | undefined>;
  close(): Promise<void>;
}

export interface HeldUpload {
  /** Lets go; false when the hold was lost before (the connection broke): another process may have written. */
  release(): Promise<boolean>;
}

/** What the locks' connection calls itself in pg_stat_activity. */
const APPLICATION_NAME = "d1node upload locks";
/** The advisory lock space of uploads (two-number form, beside content keys' "d1k"). */
const UPLOAD_SPACE = 0x643175; // "d1u"
const CONNECT_TIMEOUT_MS = 5000;

const ALWAYS_HELD: HeldUpload = { release: async () => true };

/** The database's upload locks: `postgresUrl` undefined (SQLite) holds every upload at once. */
export function uploadLocks(postgresUrl: string | undefined): UploadLocks {
  if (postgresUrl === undefined) return { tryHold: async () => ALWAYS_HELD, close: async () => undefined };
  let connection: Promise<pg.Client> | undefined;
  /** Counts the connections made: a hold taken on an earlier one was lost with it. */
  let generation = 0;
  let closed = false;

  const connect = async (): Promise<pg.Client> => {
    const { default: pgModule } = await import("pg");
    const client = new pgModule.Client({
      connectionString: postgresUrl,
      application_name: APPLICATION_NAME,
      keepAlive: true,
      connectionTimeoutMillis: CONNECT_TIMEOUT_MS,
    });
    const lose = () => {
      if (connection === made) {
        connection = undefined;
        generation++;
      }
      client.end().catch(() => undefined);
    };
    const made = client.connect().then(() => client);
    connection = made;
    client.on("error", lose);
    client.on("end", lose);
    try {
      return await made;
    } catch (error) {
      lose();
      throw error;
    }
  };
  const client = () => {
    if (closed) throw new Error("The upload locks are closed.");
    return connection ?? connect();
  };
  const ask = async (text: string, id: string): Promise<boolean> => {
    const result = await (await client()).query<{ ok: boolean }>(text, [UPLOAD_SPACE, id]);
    return result.rows[0]?.ok === true;
  };

  return {
    async tryHold(id) {
      if (!(await ask("select pg_try_advisory_lock($1, hashtext($2)) as ok", id))) return undefined;
      // The hold lives as long as this connection: a later one means it was lost.
      const since = generation;
      return {
        async release() {
          if (since !== generation || !connection) return false;
          return ask("select pg_advisory_unlock($1, hashtext($2)) as ok", id).catch(() => false);
        },
      };
    },
    async close() {
      closed = true;
      const open = connection;
      connection = undefined;
      await open?.then((c) => c.end()).catch(() => undefined);
    },
  };
}
